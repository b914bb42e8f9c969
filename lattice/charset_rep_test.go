package lattice

import (
	"testing"
	"unicode"
)

// representativeLoop is representative's definition: the first printable,
// non-blank rune among the interval's first 256, else its first rune.
func representativeLoop(lo, hi rune) rune {
	if lo == hi {
		return lo
	}
	if lo < 128 {
		if r := bestASCII[lo][min(hi, 127)]; r != 0 {
			return rune(r)
		}
	}
	for r := lo; r <= hi && r < lo+256; r++ {
		if unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return r
		}
	}
	return lo
}

// TestRepresentativeTable: the printable-span table answers what the
// loop over unicode.IsPrint answers, at every rune as an interval's start
// and for interval lengths around the 256-rune window and the spans' ends.
func TestRepresentativeTable(t *testing.T) {
	lens := []rune{0, 1, 2, 15, 254, 255, 256, 300, 0x10000}
	// Every 61st rune, and every rune within 300 of a printable span's
	// ends (where the answer changes).
	var starts []rune
	for lo := rune(0); lo <= unicode.MaxRune; lo += 61 {
		starts = append(starts, lo)
	}
	for _, s := range printSpans() {
		for _, e := range []rune{s.lo, s.hi} {
			for d := rune(-300); d <= 2; d += 3 {
				if r := e + d; r >= 0 && r <= unicode.MaxRune {
					starts = append(starts, r)
				}
			}
		}
	}
	for _, lo := range starts {
		for _, n := range lens {
			hi := min(lo+n, unicode.MaxRune)
			if got, want := representative(lo, hi), representativeLoop(lo, hi); got != want {
				t.Fatalf("representative(%#x, %#x) = %#x, want %#x", lo, hi, got, want)
			}
		}
	}
}

// FuzzRepresentative compares the table with the loop on any interval.
func FuzzRepresentative(f *testing.F) {
	f.Add(int32(0x30000), int32(0x300ff))
	f.Add(int32(0x4e00), int32(0x10ffff))
	f.Fuzz(func(t *testing.T, lo, hi int32) {
		l, h := rune(lo)&0x1fffff, rune(hi)&0x1fffff
		if l > unicode.MaxRune || h > unicode.MaxRune || l > h {
			return
		}
		if got, want := representative(l, h), representativeLoop(l, h); got != want {
			t.Fatalf("representative(%#x, %#x) = %#x, want %#x", l, h, got, want)
		}
	})
}
