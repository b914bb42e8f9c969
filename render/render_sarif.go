package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/shipgate-app/shipgate/policy"
	"github.com/shipgate-app/shipgate/rating"
	"github.com/shipgate-app/shipgate/report"
)

// SARIF constants: the schema a log declares, the tool's home, and the key
// of the fingerprint GitHub code scanning uses to follow one alert across
// uploads.
const (
	sarifSchemaURI     = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion       = "2.1.0"
	sarifToolURI       = "https://github.com/shipgate-app/shipgate"
	sarifHelpURI       = "https://github.com/shipgate-app/shipgate/blob/main/docs/checks.md#"
	sarifFingerprintID = "shipgateFindingKey/v1"
)

// SARIF renders the Report's findings as a SARIF 2.1.0 log for GitHub code
// scanning and other SARIF consumers: one run whose tool.driver lists every
// check of the Catalogue as a rule, and one result per finding. A result's
// level follows its action (block → error, require_review → warning,
// advisory → note); its location is the head file and the head line a
// reviewer's annotation goes on; its partialFingerprints hash the
// finding's Key, which holds no line number, so an alert keeps its identity
// (and a dismissal sticks) when lines move. Output is indented, HTML
// escaping off, with a trailing newline, and byte-stable.
func SARIF(r report.Report, o Options) ([]byte, error) {
	rules := make([]sarifRule, len(report.Catalogue))
	index := map[string]int{}
	for i, c := range report.Catalogue {
		index[c.ID] = i
		rules[i] = sarifRule{
			ID:                   c.ID,
			Name:                 sarifRuleName(c.ID),
			ShortDescription:     sarifText{Text: c.Title},
			FullDescription:      sarifText{Text: report.FirstNonEmpty(c.Summary, c.Title)},
			Help:                 &sarifText{Text: report.FirstNonEmpty(c.Summary, c.Title)},
			HelpURI:              sarifHelpURI + strings.ToLower(c.ID),
			DefaultConfiguration: sarifConfig{Level: sarifLevel(c.Action)},
			Properties: sarifRuleProps{
				DefaultAction:    string(c.Action),
				DefaultRisk:      string(c.Risk),
				SecuritySeverity: securitySeverity(c.Risk),
				Tags:             []string{"security", "agent-permissions", "claude-code"},
			},
		}
	}
	results := make([]sarifResult, 0, len(r.Findings))
	for _, f := range r.Findings {
		res := sarifResult{
			RuleID:  f.CheckID,
			Level:   sarifLevel(f.Action),
			Message: sarifText{Text: report.FirstNonEmpty(f.Message, f.Title, f.CheckID)},
			PartialFingerprints: map[string]string{
				sarifFingerprintID: fingerprint(f),
			},
			Properties: sarifResultProps{Action: string(f.Action), Risk: string(f.Risk)},
		}
		if i, ok := index[f.CheckID]; ok {
			res.RuleIndex = &i
		}
		loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(f.Path)}}
		if line := findingLine(f); line > 0 {
			loc.Region = &sarifRegion{StartLine: line}
		}
		res.Locations = []sarifLocation{{PhysicalLocation: loc}}
		for _, sg := range r.Suggestions {
			if sg.Path == f.Path && sg.Line == f.Line && !f.Base && f.Title == "allow "+sg.Rule {
				res.Fixes = append(res.Fixes, sarifFix{
					Description: sarifText{Text: sg.Why},
					ArtifactChanges: []sarifArtifactChange{{
						ArtifactLocation: sarifArtifact{URI: sarifURI(sg.Path)},
						// A region of a start line alone is that whole line
						// (SARIF 3.30.5); the inserted text replaces it.
						Replacements: []sarifReplacement{{DeletedRegion: sarifRegion{StartLine: sg.Line}, InsertedContent: sarifText{Text: sg.After}}},
					}},
				})
			}
		}
		results = append(results, res)
	}
	log := sarifLog{
		Schema:  sarifSchemaURI,
		Version: sarifVersion,
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{
				Name:           "shipgate",
				Version:        o.Version,
				InformationURI: sarifToolURI,
				Rules:          rules,
			}},
			Results: results,
		}},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// findingLine is the head line a result points at: the annotation line
// when the engine set one, else the finding's own line.
func findingLine(f report.Finding) int {
	if f.HeadLine > 0 {
		return f.HeadLine
	}
	return f.Line
}

// fingerprint hashes what identifies a finding independently of line
// numbers: its Key (check, path, list, rule or setting), or, for a finding
// without one, its check, path and evidence.
func fingerprint(f report.Finding) string {
	key := f.Key
	if key == "" {
		key = f.CheckID + "|" + f.Path + "|" + f.Evidence
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// sarifLevel maps an action to a SARIF level.
func sarifLevel(a policy.Action) string {
	switch a {
	case policy.Block:
		return "error"
	case policy.RequireReview:
		return "warning"
	}
	return "note"
}

// securitySeverity is GitHub's security-severity (0.0–10.0, as a string)
// for a risk tier.
func securitySeverity(risk rating.Risk) string {
	switch risk {
	case "critical":
		return "9.5"
	case "high":
		return "8.0"
	case "medium":
		return "5.5"
	case "low":
		return "3.0"
	}
	return "0.0"
}

// sarifRuleName turns a check ID into a readable rule name:
// SHIP-HOST-BOUNDARY-PERMISSION-DENY-REMOVED → PermissionDenyRemoved.
func sarifRuleName(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.TrimPrefix(id, mdCheckShort), "-") {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + strings.ToLower(w[1:]))
	}
	return b.String()
}

// sarifURI turns a repository path into a relative URI reference
// (spaces and other reserved characters percent-encoded).
func sarifURI(p string) string {
	u := url.URL{Path: strings.TrimPrefix(strings.ReplaceAll(p, "\\", "/"), "/")}
	return u.String()
}

// The SARIF 2.1.0 subset Shipgate writes, in the order of the specification.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string         `json:"id"`
		Name                 string         `json:"name"`
		ShortDescription     sarifText      `json:"shortDescription"`
		FullDescription      sarifText      `json:"fullDescription"`
		Help                 *sarifText     `json:"help,omitempty"`
		HelpURI              string         `json:"helpUri,omitempty"`
		DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
		Properties           sarifRuleProps `json:"properties"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifRuleProps struct {
		DefaultAction    string   `json:"default-action"`
		DefaultRisk      string   `json:"default-risk"`
		SecuritySeverity string   `json:"security-severity"`
		Tags             []string `json:"tags"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           *int              `json:"ruleIndex,omitempty"`
		Level               string            `json:"level"`
		Message             sarifText         `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          sarifResultProps  `json:"properties"`
		// Fixes carry the proven narrower rule of a suggestion (judge/suggest.go).
		Fixes []sarifFix `json:"fixes,omitempty"`
	}
	sarifFix struct {
		Description     sarifText             `json:"description"`
		ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
	}
	sarifArtifactChange struct {
		ArtifactLocation sarifArtifact      `json:"artifactLocation"`
		Replacements     []sarifReplacement `json:"replacements"`
	}
	sarifReplacement struct {
		DeletedRegion   sarifRegion `json:"deletedRegion"`
		InsertedContent sarifText   `json:"insertedContent"`
	}
	sarifResultProps struct {
		Action string `json:"action"`
		Risk   string `json:"risk"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
)
