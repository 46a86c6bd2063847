package sink

// Build is what the binary knows about its own build, as a session's
// header and run lines record it (run reads it once and passes it down).
type Build struct {
	Version  string // the -ldflags version, a module version tag, or "dev"
	Commit   string // the VCS revision, 12 hex digits; "" when unknown
	Modified bool   // built from a work tree with uncommitted changes
	Go       string // the Go toolchain, such as "go1.26.0"
}
