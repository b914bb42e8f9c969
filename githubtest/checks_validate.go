package githubtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// GitHub's check-run limits.
const (
	maxAnnotationsPerRequest = 50
	maxOutputChars           = 65535
	maxOutputBytes           = 65535
	maxAnnotationTitle       = 255
	maxAnnotationBlob        = 64 * 1024
	maxActions               = 3
	maxActionLabel           = 20
	maxActionIdentifier      = 20
	maxActionDescription     = 40
)

// checkStatuses, checkConclusions and annotationLevels are the enums of the
// check-run request schema.
func checkStatuses() []string { return []string{"queued", "in_progress", "completed"} }

func checkConclusions() []string {
	return []string{"action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out"}
}

func annotationLevels() []string { return []string{"notice", "warning", "failure"} }

// checkRunInput is a validated create or update body; nil fields were
// absent.
type checkRunInput struct {
	name, headSHA, detailsURL, externalID *string
	status, conclusion                    *string
	startedAt, completedAt                *time.Time
	output                                *outputInput
	actions                               []CheckRunAction
	actionsGiven                          bool
}

type outputInput struct {
	title, summary, text *string
	annotations          []Annotation
	images               []any
}

// bodyChecker collects schema-level problems in GitHub's wording.
type bodyChecker struct {
	problems []string
	fields   []fieldError
}

func (b *bodyChecker) add(field, code, problem string) {
	b.problems = append(b.problems, problem)
	b.fields = append(b.fields, fieldError{Resource: "CheckRun", Field: field, Code: code, Message: problem})
}

// jsonValue renders a value as GitHub's messages quote it (null is nil).
func jsonValue(v any) string {
	if v == nil {
		return "nil"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func (b *bodyChecker) str(m map[string]any, key, where string) *string {
	v, ok := m[key]
	if !ok {
		return nil
	}
	s, isStr := v.(string)
	if !isStr {
		b.add(key, "invalid", fmt.Sprintf("For '%s', %s is not a string.", where+key, jsonValue(v)))
		return nil
	}
	return &s
}

func (b *bodyChecker) integer(m map[string]any, key, where string) *int {
	v, ok := m[key]
	if !ok {
		return nil
	}
	n, isNum := v.(json.Number)
	i, err := n.Int64()
	if !isNum || err != nil {
		b.add(key, "invalid", fmt.Sprintf("For '%s', %s is not an integer.", where+key, jsonValue(v)))
		return nil
	}
	out := int(i)
	return &out
}

func (b *bodyChecker) enum(val *string, key, where string, allowed []string) {
	if val == nil {
		return
	}
	for _, a := range allowed {
		if *val == a {
			return
		}
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = jsonValue(a)
	}
	b.add(key, "invalid", fmt.Sprintf("For '%s', %s is not a member of [%s].", where+key, jsonValue(*val), strings.Join(quoted, ", ")))
}

func (b *bodyChecker) maxChars(val *string, key string, limit int) {
	if val != nil {
		if n := utf8.RuneCountInString(*val); n > limit {
			b.add(key, "invalid", tooLong(limit, n))
		}
	}
}

func (b *bodyChecker) required(m map[string]any, field string, keys ...string) {
	var missing []string
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		b.add(field, "missing_field", missingFields(missing))
	}
}

func (b *bodyChecker) object(m map[string]any, key, where string) (map[string]any, bool) {
	v, ok := m[key]
	if !ok {
		return nil, false
	}
	o, isObj := v.(map[string]any)
	if !isObj {
		b.add(key, "invalid", fmt.Sprintf("For '%s', %s is not an object.", where+key, jsonValue(v)))
		return nil, false
	}
	return o, true
}

func (b *bodyChecker) array(m map[string]any, key, where string) ([]any, bool) {
	v, ok := m[key]
	if !ok {
		return nil, false
	}
	a, isArr := v.([]any)
	if !isArr {
		b.add(key, "invalid", fmt.Sprintf("For '%s', %s is not an array.", where+key, jsonValue(v)))
		return nil, false
	}
	return a, true
}

func (b *bodyChecker) timestamp(m map[string]any, key string) *time.Time {
	s := b.str(m, key, "properties/")
	if s == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339, *s)
	if err != nil {
		b.add(key, "invalid", fmt.Sprintf("For 'properties/%s', %s is not a valid date-time.", key, jsonValue(*s)))
		return nil
	}
	t = t.UTC()
	return &t
}

// parseCheckRunBody validates a create (create=true) or update body the
// way GitHub does: first the endpoint's JSON schema (422 "Invalid
// request." with one line per problem), then the model rules (422
// "Validation Failed" with errors[]).
func parseCheckRunBody(m map[string]any, create bool, doc string) (*checkRunInput, *apiError) {
	var b bodyChecker
	in := &checkRunInput{}
	if create {
		b.required(m, "name", "name", "head_sha")
	}
	in.name = b.str(m, "name", "properties/")
	in.headSHA = b.str(m, "head_sha", "properties/")
	in.detailsURL = b.str(m, "details_url", "properties/")
	in.externalID = b.str(m, "external_id", "properties/")
	in.status = b.str(m, "status", "properties/")
	b.enum(in.status, "status", "properties/", checkStatuses())
	in.conclusion = b.str(m, "conclusion", "properties/")
	b.enum(in.conclusion, "conclusion", "properties/", checkConclusions())
	in.startedAt = b.timestamp(m, "started_at")
	in.completedAt = b.timestamp(m, "completed_at")
	if out, ok := b.object(m, "output", "properties/"); ok {
		in.output = b.output(out)
	}
	if acts, ok := b.array(m, "actions", "properties/"); ok {
		in.actionsGiven = true
		in.actions = b.actionList(acts)
	}
	if len(b.problems) > 0 {
		e := errInvalidRequest(doc, b.problems)
		e.errors = b.fields
		return nil, e
	}
	return in, modelRules(in, doc)
}

func (b *bodyChecker) output(out map[string]any) *outputInput {
	o := &outputInput{}
	b.required(out, "output", "title", "summary")
	o.title = b.str(out, "title", "properties/output/properties/")
	o.summary = b.str(out, "summary", "properties/output/properties/")
	o.text = b.str(out, "text", "properties/output/properties/")
	b.maxChars(o.summary, "summary", maxOutputChars)
	b.maxChars(o.text, "text", maxOutputChars)
	if anns, ok := b.array(out, "annotations", "properties/output/properties/"); ok {
		if len(anns) > maxAnnotationsPerRequest {
			b.add("annotations", "invalid", tooMany(maxAnnotationsPerRequest, len(anns)))
		}
		o.annotations = []Annotation{}
		for _, raw := range anns {
			am, isObj := raw.(map[string]any)
			if !isObj {
				b.add("annotations", "invalid", fmt.Sprintf("For 'items', %s is not an object.", jsonValue(raw)))
				continue
			}
			o.annotations = append(o.annotations, b.annotation(am))
		}
	}
	if imgs, ok := b.array(out, "images", "properties/output/properties/"); ok {
		for _, raw := range imgs {
			im, isObj := raw.(map[string]any)
			if !isObj {
				b.add("images", "invalid", fmt.Sprintf("For 'items', %s is not an object.", jsonValue(raw)))
				continue
			}
			b.required(im, "images", "alt", "image_url")
			b.str(im, "alt", "items/properties/")
			b.str(im, "image_url", "items/properties/")
			b.str(im, "caption", "items/properties/")
		}
		o.images = imgs
	}
	return o
}

func (b *bodyChecker) annotation(am map[string]any) Annotation {
	b.required(am, "annotations", "path", "start_line", "end_line", "annotation_level", "message")
	var a Annotation
	const where = "items/properties/"
	if v := b.str(am, "path", where); v != nil {
		a.Path = *v
	}
	if v := b.integer(am, "start_line", where); v != nil {
		a.StartLine = *v
	}
	if v := b.integer(am, "end_line", where); v != nil {
		a.EndLine = *v
	}
	a.StartColumn = b.integer(am, "start_column", where)
	a.EndColumn = b.integer(am, "end_column", where)
	level := b.str(am, "annotation_level", where)
	b.enum(level, "annotation_level", where, annotationLevels())
	if level != nil {
		a.AnnotationLevel = *level
	}
	if v := b.str(am, "message", where); v != nil {
		a.Message = *v
	}
	if v := b.str(am, "title", where); v != nil {
		a.Title = *v
	}
	if v := b.str(am, "raw_details", where); v != nil {
		a.RawDetails = *v
	}
	return a
}

func (b *bodyChecker) actionList(acts []any) []CheckRunAction {
	if len(acts) > maxActions {
		b.add("actions", "invalid", tooMany(maxActions, len(acts)))
	}
	out := []CheckRunAction{}
	const where = "items/properties/"
	for _, raw := range acts {
		am, isObj := raw.(map[string]any)
		if !isObj {
			b.add("actions", "invalid", fmt.Sprintf("For 'items', %s is not an object.", jsonValue(raw)))
			continue
		}
		b.required(am, "actions", "label", "description", "identifier")
		label, desc, ident := b.str(am, "label", where), b.str(am, "description", where), b.str(am, "identifier", where)
		b.maxChars(label, "label", maxActionLabel)
		b.maxChars(desc, "description", maxActionDescription)
		b.maxChars(ident, "identifier", maxActionIdentifier)
		var a CheckRunAction
		if label != nil {
			a.Label = *label
		}
		if desc != nil {
			a.Description = *desc
		}
		if ident != nil {
			a.Identifier = *ident
		}
		out = append(out, a)
	}
	return out
}

// modelRules are the checks GitHub applies after the schema: byte sizes,
// the conclusion a completed run needs, and annotation consistency.
func modelRules(in *checkRunInput, doc string) *apiError {
	if o := in.output; o != nil {
		for _, f := range []struct {
			name string
			val  *string
		}{{"summary", o.summary}, {"text", o.text}} {
			if f.val != nil && len(*f.val) > maxOutputBytes {
				return errValidation(doc, fieldError{Resource: "CheckRun", Field: f.name, Code: "custom",
					Message: fmt.Sprintf("%s exceeds a maximum bytesize of %d", f.name, maxOutputBytes)})
			}
		}
		for i, a := range o.annotations {
			if msg := annotationProblem(a); msg != "" {
				return errValidation(doc, fieldError{Resource: "CheckRun", Field: "annotations", Code: "invalid",
					Message: fmt.Sprintf("annotation %d: %s", i, msg)})
			}
		}
	}
	completed := (in.status != nil && *in.status == "completed") || in.completedAt != nil
	if completed && in.conclusion == nil {
		return errValidation(doc, fieldError{Resource: "CheckRun", Field: "conclusion", Code: "missing_field"})
	}
	if in.conclusion != nil && *in.conclusion == "stale" {
		return errValidation(doc, fieldError{Resource: "CheckRun", Field: "conclusion", Code: "invalid",
			Message: "only GitHub can set the conclusion stale"})
	}
	return nil
}

func annotationProblem(a Annotation) string {
	switch {
	case a.StartLine > a.EndLine:
		return "start_line is after end_line"
	case (a.StartColumn != nil || a.EndColumn != nil) && a.StartLine != a.EndLine:
		return "start_column and end_column are only allowed when start_line equals end_line"
	case a.StartColumn != nil && a.EndColumn != nil && *a.StartColumn > *a.EndColumn:
		return "start_column is after end_column"
	case utf8.RuneCountInString(a.Title) > maxAnnotationTitle:
		return fmt.Sprintf("title is longer than %d characters", maxAnnotationTitle)
	case len(a.Message) > maxAnnotationBlob:
		return "message exceeds a maximum bytesize of 64 KB"
	case len(a.RawDetails) > maxAnnotationBlob:
		return "raw_details exceeds a maximum bytesize of 64 KB"
	}
	return ""
}
