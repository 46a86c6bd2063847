package events

// The values of error.type, in a retry or a result. A consumer branches
// on them; the message is for people.
const (
	ErrUsage           = "usage"            // a bad flag or argument
	ErrConfig          = "config"           // a bad configuration file or variable, a missing key
	ErrPolicy          = "policy"           // a bad policy file, or a call needing approval with headless_ask abort
	ErrAuth            = "auth"             // the provider refused the key (401, 403)
	ErrBadRequest      = "bad_request"      // the provider refused the request (400, 404, 413, 422)
	ErrRateLimit       = "rate_limit"       // 429
	ErrQuota           = "quota"            // credit or quota exhausted
	ErrOverloaded      = "overloaded"       // the provider is overloaded (529)
	ErrServer          = "server"           // a provider-side failure (5xx) or a malformed stream
	ErrNetwork         = "network"          // no connection, or the stream was cut
	ErrContextOverflow = "context_overflow" // the conversation no longer fits the context window
	ErrTimeout         = "timeout"          // --timeout
	ErrMaxTurns        = "max_turns"        // --max-turns
	ErrMaxToolCalls    = "max_tool_calls"   // --max-tool-calls
	ErrMaxTokens       = "max_tokens"       // --max-tokens-total
	ErrMaxCost         = "max_cost"         // --max-cost
	ErrMaxDenials      = "max_denials"      // the policy's max_denials
	ErrInterrupted     = "interrupted"      // SIGINT or SIGTERM
	ErrBrokenPipe      = "broken_pipe"      // stdout's reader went away
	ErrInternal        = "internal"         // a tool's infrastructure, an I/O error, a bug
	ErrVerifyFailed    = "verify_failed"    // --verify did not pass within its attempts (exit 6)
	// ErrStructuredOutput: the final answer never matched --json-schema
	// within its retries (exit 7).
	ErrStructuredOutput = "structured_output"
)

// ErrorTypes lists every error.type value, in the order of the schema.
func ErrorTypes() []string {
	return []string{
		ErrUsage, ErrConfig, ErrPolicy, ErrAuth, ErrBadRequest, ErrRateLimit, ErrQuota, ErrOverloaded,
		ErrServer, ErrNetwork, ErrContextOverflow, ErrTimeout, ErrMaxTurns, ErrMaxToolCalls, ErrMaxTokens,
		ErrMaxCost, ErrMaxDenials, ErrInterrupted, ErrBrokenPipe, ErrInternal, ErrVerifyFailed, ErrStructuredOutput,
	}
}
