package lattice

import (
	"math/rand"
	"slices"
	"testing"
)

// TestEpsReachIsTheClosure: the closure table build() fills from the edge
// graph (epsReach) holds, for every source position, exactly what the
// fixed point of the shift rules (machine.closure without the table)
// gives: on launcher templates with many value options, on rule
// machines, and on random edge sets with cycles.
func TestEpsReachIsTheClosure(t *testing.T) {
	var ms []*machine
	for _, l := range []Launcher{
		{Words: []string{"docker", "run"}, ValueOptions: []string{"-v", "--volume", "-e", "--env", "-u", "--user", "-w", "--workdir", "--name", "--network", "-p"}},
		{Words: []string{"npx"}, ValueOptions: []string{"-p", "--package", "-c", "--call"}, Assignments: true},
		{Words: []string{"bash", "-c"}, ValueOptions: []string{"-o", "-O", "--rcfile"}, PlusOptions: true},
	} {
		ms = append(ms, l.template())
	}
	rng := rand.New(rand.NewSource(1))
	for k := 0; k < 40; k++ {
		b := newBuilder()
		n := 70 + rng.Intn(200)
		for i := 0; i < n; i++ {
			b.char(single('a' + rune(rng.Intn(3))))
		}
		for e := 0; e < n/2+rng.Intn(2*n); e++ {
			b.epsilon(rng.Intn(n), rng.Intn(n)) // backwards edges make cycles
		}
		ms = append(ms, b.build())
	}
	checked := 0
	for _, m := range ms {
		if m.closW == nil {
			continue
		}
		slow := *m
		slow.closW, slow.epsFromW, slow.closAt = nil, nil, nil
		for i := 0; i < m.n; i++ {
			if m.epsFromW[i/64]&(1<<(uint(i)%64)) == 0 {
				continue
			}
			want := make([]uint64, m.words)
			setBit(want, i)
			slow.closure(want)
			o := int(m.closAt[i])
			if got := m.closW[o : o+m.words]; !slices.Equal(got, want) {
				t.Fatalf("machine of %d positions, position %d: table %x, fixed point %x", m.n, i, got, want)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d closures compared: the cases no longer build multi-word machines with edges", checked)
	}
}
