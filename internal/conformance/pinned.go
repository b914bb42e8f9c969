package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// pinnedBinary is an agent binary the oracles pin and `make <target>`
// installs with npm outside the repository: where it lives, how its
// version is checked, and the environment that overrides or requires it.
// The OpenCode and Copilot CLI oracles share it.
type pinnedBinary struct {
	name, version string
	// target is the make target that installs it; pkg the npm package.
	target, pkg string
	// binEnv names another executable; cacheEnv another cache folder;
	// requireEnv=1 makes a missing binary a failure (CI).
	binEnv, cacheEnv, requireEnv string
	// cacheName is the cache folder's name under <cache>/shipgate.
	cacheName string
	// path is the executable's path in the cache folder.
	path []string
	// versionOK says whether `--version` printed the pinned release.
	versionOK func(out string) bool
}

// cacheDir is where the make target installs the package.
func (b pinnedBinary) cacheDir() string {
	if d := os.Getenv(b.cacheEnv); d != "" {
		return d
	}
	return filepath.Join(cacheBase(), "shipgate", b.cacheName, b.version)
}

// find returns the executable ("" if none).
func (b pinnedBinary) find() string {
	if p := os.Getenv(b.binEnv); p != "" {
		return p
	}
	p := filepath.Join(append([]string{b.cacheDir()}, b.path...)...)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p
	}
	return ""
}

// check runs `bin --version` and refuses another release.
func (b pinnedBinary) check(ctx context.Context, bin string) error {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", bin, err)
	}
	if !b.versionOK(strings.TrimSpace(string(out))) {
		return fmt.Errorf("%s is %q, the oracle is pinned to %s %s (make %s)", bin, firstLine(string(out), ""), b.name, b.version, b.target)
	}
	return nil
}

// missing is the message for an absent binary.
func (b pinnedBinary) missing() string {
	return "no " + b.name + " binary: `make " + b.target + "` installs " + b.pkg + "@" + b.version + " into " + b.cacheDir()
}
