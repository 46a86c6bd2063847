package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Isolation: what Landlock has no right for — changing the metadata of a
// file (chmod, setuid bit included, chown, utime, setxattr) and UDP
// before ABI 10 — is refused by namespaces. The helper or spawner is
// started (by [Rules.Namespaces]) in a mount namespace of its own and,
// with the network off, a network namespace of its own; where rubichan
// lacks CAP_SYS_ADMIN (not root, or root in a container) inside a user
// namespace too, which maps only rubichan's own uid and gid (to
// themselves) and gives the process CAP_SYS_ADMIN, CAP_SETUID and
// CAP_SETGID (ambient) only until it confines itself. Before it drops its
// capabilities it makes every mount read-only but the writable roots
// (isolate): the calls then fail with EROFS outside them, whatever the
// file's owner. The network namespace has only a loopback device, left
// down: no packet of any protocol leaves it, nor reaches 127.0.0.1.

// Namespaces returns attr (nil: a new one) with the namespaces an
// isolating helper or spawner must start in: nothing when r.Isolate is
// false.
func (r Rules) Namespaces(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	if !r.Isolate {
		return attr
	}
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Cloneflags |= syscall.CLONE_NEWNS
	if !r.Network {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if !hasSysAdmin() {
		// The new process maps its ids itself (isolate; see userNSFlag):
		// rubichan, not dumpable, cannot write a child's uid_map. Unless
		// its uid is 0, exec would drop the capabilities the new
		// namespace gives: keep those it needs ambient. (A command cannot
		// undo the read-only mounts from a user namespace of its own:
		// Landlock refuses it mounts, and the kernel locks read-only
		// mounts a less privileged namespace inherits.)
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETUID, unix.CAP_SETGID}
	}
	return attr
}

// userNSFlag is the flag that tells an isolating helper or spawner that
// it is in a new user namespace whose ids it maps: "--userns UID:GID",
// rubichan's own; none where rubichan has CAP_SYS_ADMIN.
func userNSFlag() []string {
	if hasSysAdmin() {
		return nil
	}
	return []string{"--userns", fmt.Sprintf("%d:%d", os.Geteuid(), os.Getegid())}
}

// mapIDs maps the ids of this process's new user namespace: uid and gid
// to themselves, setgroups denied (as an unprivileged user must). An
// executable owned by another user leaves the process not dumpable, and
// its /proc/self files then not its own: it becomes dumpable first (the
// spawner gives that up again once confined; the helper's exec resets
// it).
func mapIDs(uid, gid int) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("isolate: %w", err)
	}
	for _, w := range [][2]string{
		{"/proc/self/setgroups", "deny"},
		{"/proc/self/uid_map", fmt.Sprintf("%d %d 1", uid, uid)},
		{"/proc/self/gid_map", fmt.Sprintf("%d %d 1", gid, gid)},
	} {
		if err := os.WriteFile(w[0], []byte(w[1]), 0); err != nil {
			return fmt.Errorf("isolate: map the user namespace's ids: %w", err)
		}
	}
	return nil
}

// hasSysAdmin reports whether this process has CAP_SYS_ADMIN (effective),
// which makes mount namespaces without a user namespace.
func hasSysAdmin() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[unix.CAP_SYS_ADMIN/32].Effective&(1<<(unix.CAP_SYS_ADMIN%32)) != 0
}

// ProbeNamespaces returns nil when commands can be isolated on this
// system (see [Rules.Namespaces]), or why not: unprivileged user
// namespaces disabled or restricted by a sysctl, or refused by the
// kernel (a container's seccomp profile, no CAP_SYS_ADMIN). It tries
// for real: it starts a process in the namespaces, whose exec of a path
// under /dev/null then fails with ENOTDIR, which only exec gives.
func ProbeNamespaces() error {
	if !hasSysAdmin() {
		for _, s := range []struct{ file, bad, why string }{
			{"/proc/sys/kernel/unprivileged_userns_clone", "0", "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)"},
			{"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1", "AppArmor denies capabilities in unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)"},
			{"/proc/sys/user/max_user_namespaces", "0", "user namespaces are disabled (user.max_user_namespaces = 0)"},
		} {
			if b, err := os.ReadFile(s.file); err == nil && strings.TrimSpace(string(b)) == s.bad {
				return errors.New(s.why)
			}
		}
	}
	// Without a network namespace, whose making costs most (a new one
	// can always be made inside the namespaces made here).
	attr := Rules{Isolate: true, Network: true}.Namespaces(nil)
	_, err := syscall.ForkExec("/dev/null/rubichan-namespace-probe", []string{"rubichan-namespace-probe"}, &syscall.ProcAttr{Sys: attr})
	if errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	return fmt.Errorf("the kernel refuses new namespaces (%v): in a container, its seccomp profile or a missing CAP_SYS_ADMIN", err)
}

// isolate maps the ids of the new user namespace when there is one (ids
// not nil) and makes every mount of this process's new mount namespace
// read-only except the writable roots, which get a writable
// copy of their mount tree as it was; missing roots are skipped. It needs
// CAP_SYS_ADMIN in the namespace, and a kernel with mount_setattr
// (Linux >= 5.12, older than any with Landlock).
func isolate(writable []string, ids *[2]int) error {
	if ids != nil {
		if err := mapIDs(ids[0], ids[1]); err != nil {
			return err
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("isolate: %w", err)
	}
	// Nothing done here may reach the mounts of other namespaces.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("isolate: make / private: %w", err)
	}
	roots := slices.Clone(writable)
	// Outer roots first: an inner one is mounted over its outer one's copy.
	slices.SortFunc(roots, func(a, b string) int { return len(a) - len(b) })
	var fds []int
	var dirs []string
	defer func() {
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
	}()
	for _, d := range roots {
		fd, err := unix.OpenTree(unix.AT_FDCWD, d, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if errors.Is(err, syscall.ENOENT) {
			continue
		}
		if err != nil {
			return fmt.Errorf("isolate: copy the mount of %s: %w", d, err)
		}
		fds, dirs = append(fds, fd), append(dirs, d)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("isolate: make every mount read-only: %w", err)
	}
	for i, fd := range fds {
		if err := unix.MoveMount(fd, "", unix.AT_FDCWD, dirs[i], unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("isolate: mount %s writable: %w", dirs[i], err)
		}
	}
	// The working directory was on the mount now hidden under a copy.
	if err := os.Chdir(wd); err != nil {
		return fmt.Errorf("isolate: %w", err)
	}
	return nil
}
