//go:build race

package policy

// raceSlowdown is how much slower the race detector makes the policy's
// analysis in TestAdversarialSizes (measured: 4.2 s against 1.0 s for the
// slowest case, on a loaded machine).
const raceSlowdown = 5
