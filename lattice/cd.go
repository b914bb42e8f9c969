package lattice

// FamilyCd is Cd: directory patterns in which `*` stays inside one segment.
const FamilyCd Family = "cd"

// compileCd compiles a Cd rule, which governs the user's /cd command:
// the pattern must match the whole directory, `*` matches within one path
// segment and `**` across segments (code.claude.com/docs/en/permissions,
// "Cd"). So Cd(*) is one segment — it does not cover Cd(a/b) — and only
// Cd(**) (any run of stars of two or more alone) matches every directory.
func (r *Rule) compileCd(tool, spec string) []*reading {
	ts := globTokens(spec)
	allStars := len(ts) > 0
	for _, t := range ts {
		allStars = allStars && t.star
	}
	if allStars && len(ts) >= 2 {
		return []*reading{wholeTool(tool)}
	}
	if stars(ts) == 0 {
		return []*reading{literalReading(tool, argText, tokensText(ts))}
	}
	return []*reading{argsReading(tool, argText, func(b *builder) {
		for i := 0; i < len(ts); i++ {
			t := ts[i]
			if !t.star {
				b.char(single(t.r))
				continue
			}
			n := 1
			for i+1 < len(ts) && ts[i+1].star {
				i++
				n++
			}
			if n >= 2 {
				b.star(anyChar)
			} else {
				b.star(segChar)
			}
		}
	})}
}
