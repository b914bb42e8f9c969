// Package layering holds the test that keeps Shipgate's package layout
// true to CONTRIBUTING.md: the folders form layers, imports point down,
// and no two top-level folders import each other, directly or around a
// circle. It has no code of its own.
package layering
