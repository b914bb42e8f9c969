package githubtest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// apiError is a GitHub error response: the status and the JSON body GitHub
// sends ({"message", "documentation_url", "errors"?, "status"}).
type apiError struct {
	status  int
	message string
	docURL  string
	errors  []fieldError
	// simple holds the errors of operations whose 422 body is GitHub's
	// "validation-error-simple" (errors as strings).
	simple []string
	header map[string]string
}

// fieldError is one item of a 422 body's errors array.
type fieldError struct {
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

// Documentation URLs GitHub puts in error bodies.
const (
	docREST          = "https://docs.github.com/rest"
	docRateLimit     = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
	docSecondaryRate = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
)

func (e *apiError) body() map[string]any {
	b := map[string]any{
		"message":           e.message,
		"documentation_url": e.docURL,
		"status":            strconv.Itoa(e.status),
	}
	if e.docURL == "" {
		b["documentation_url"] = docREST
	}
	if len(e.errors) > 0 {
		b["errors"] = e.errors
	}
	if len(e.simple) > 0 {
		b["errors"] = e.simple
	}
	return b
}

func errNotFound(doc string) *apiError {
	return &apiError{status: http.StatusNotFound, message: "Not Found", docURL: doc}
}

func errBadCredentials() *apiError {
	return &apiError{status: http.StatusUnauthorized, message: "Bad credentials", docURL: docREST}
}

func errRequiresAuth(doc string) *apiError {
	return &apiError{status: http.StatusUnauthorized, message: "Requires authentication", docURL: doc}
}

func errJWT(message string) *apiError {
	return &apiError{status: http.StatusUnauthorized, message: message, docURL: docREST}
}

func errNotAccessible(doc string) *apiError {
	return &apiError{status: http.StatusForbidden, message: "Resource not accessible by integration", docURL: doc}
}

// errInvalidRequest is GitHub's answer when a body fails the endpoint's
// JSON schema: "Invalid request.\n\n" and one line per problem.
func errInvalidRequest(doc string, problems []string) *apiError {
	return &apiError{
		status:  http.StatusUnprocessableEntity,
		message: "Invalid request.\n\n" + strings.Join(problems, "\n"),
		docURL:  doc,
	}
}

// errValidation is GitHub's answer when a body passes the schema but the
// model rejects it: "Validation Failed" with errors[].
func errValidation(doc string, errs ...fieldError) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, message: "Validation Failed", docURL: doc, errors: errs}
}

// errWithFields returns an arbitrary-message 422 with errors[].
func errUnprocessable(doc, message string, errs ...fieldError) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, message: message, docURL: doc, errors: errs}
}

// missingFields words GitHub's message for absent required properties.
func missingFields(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	if len(names) == 1 {
		return quoted[0] + " wasn't supplied."
	}
	return strings.Join(quoted, ", ") + " weren't supplied."
}

func tooLong(limit, got int) string {
	return fmt.Sprintf("Only %d characters are allowed; %d were supplied.", limit, got)
}

func tooMany(limit, got int) string {
	return fmt.Sprintf("No more than %d items are allowed; %d were supplied.", limit, got)
}
