package lattice_test

import (
	"fmt"

	"github.com/shipgate-app/shipgate/lattice"
)

// Covers answers whether one rule allows every call another allows; a No
// comes with a witness, a concrete call that shows it.
func ExampleCovers() {
	wide, narrow := lattice.Parse("Bash(npm *)"), lattice.Parse("Bash(npm test:*)")
	fmt.Println(lattice.Covers(wide, narrow).Answer)
	v := lattice.Covers(narrow, wide)
	fmt.Println(v.Answer, v.Witness)
	fmt.Println(lattice.Covers(lattice.Parse("Read(src/**)"), lattice.Parse("Read(src/app/**)")).Answer)
	// Output:
	// yes
	// no npm
	// yes
}

// Find looks for one call every rule of the first set surely matches and
// no rule of the second may: what a new allow rule lets through that the
// deny rules do not stop.
func ExampleFind() {
	allow := []lattice.Rule{lattice.Parse("Bash(git *)")}
	deny := []lattice.Rule{lattice.ParseIn(lattice.Deny, "Bash(git push:*)")}
	c, ans := lattice.Find(allow, deny)
	fmt.Println(ans, c)
	_, ans = lattice.Find([]lattice.Rule{lattice.Parse("Bash(git push origin main)")}, deny)
	fmt.Println(ans)
	// Output:
	// yes git
	// no
}

// Witnesses lists calls the wider rule lets through and the narrower one
// never did, recognisable consequential ones first: what a reviewer is
// shown as "now runs without a prompt".
func ExampleWitnesses() {
	fmt.Println(lattice.Witnesses(lattice.Parse("Bash(npm test:*)"), lattice.Parse("Bash(npm *)"), 2))
	// A rule that covers the other lets nothing new through.
	fmt.Println(len(lattice.Witnesses(lattice.Parse("Bash(npm *)"), lattice.Parse("Bash(npm test:*)"), 2)))
	// Output:
	// [npm publish npm]
	// 0
}
