// Package eventstest checks machine output against the events schema, for
// the tests of packages that write it. It is a test helper: no production
// code imports it.
package eventstest
