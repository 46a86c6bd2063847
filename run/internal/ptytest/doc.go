// Package ptytest holds the test helpers that run's packages share for text
// that reaches a terminal: hostile text, the check that it was shown
// escaped, and (on Linux) a pseudo-terminal to show it on. Only tests
// import it.
package ptytest
