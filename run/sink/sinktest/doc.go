// Package sinktest holds the test helpers that the tests of run/sink and
// of the packages that use its session log share: a session log opened in
// a fresh directory on a fixed clock, and the reading of its lines. Only
// tests import it.
package sinktest
