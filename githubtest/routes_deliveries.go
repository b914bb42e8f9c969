package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// deliveryItemJSON renders hook-delivery-item.
func deliveryItemJSON(d *Delivery) map[string]any {
	var action, inst, repo any
	if d.Action != "" {
		action = d.Action
	}
	if d.InstallationID != 0 {
		inst = d.InstallationID
	}
	if d.RepositoryID != 0 {
		repo = d.RepositoryID
	}
	return map[string]any{
		"id":              d.ID,
		"guid":            d.GUID,
		"delivered_at":    ts(d.DeliveredAt),
		"redelivery":      d.Redelivery,
		"duration":        d.Duration.Seconds(),
		"status":          d.Status,
		"status_code":     d.StatusCode,
		"event":           d.Event,
		"action":          action,
		"installation_id": inst,
		"repository_id":   repo,
		"throttled_at":    nil,
	}
}

// listDeliveries serves GET /app/hook/deliveries (JWT): the app's delivery
// attempts, newest first, with GitHub's cursor pagination (a `cursor`
// query parameter taken from the Link header's rel="next") and the status
// filter (success or failure).
func (s *Server) listDeliveries(c *call) (int, any, *apiError) {
	per := defaultPerPage
	if v, err := strconv.Atoi(c.query("per_page")); err == nil && v > 0 {
		per = min(v, maxPerPage)
	}
	var after int64 = -1
	if cur := c.query("cursor"); cur != "" {
		id, err := strconv.ParseInt(strings.TrimPrefix(cur, "v1_"), 10, 64)
		if err != nil {
			return 0, nil, &apiError{status: http.StatusBadRequest, message: "Invalid cursor", docURL: c.rt.doc}
		}
		after = id
	}
	status := c.query("status")
	var list []*Delivery
	for _, d := range s.deliveriesNewestFirst(c.who.app.id) {
		if (after >= 0 && d.ID >= after) || s.st.listHidden[d.ID] {
			continue
		}
		ok := d.StatusCode >= 200 && d.StatusCode <= 299
		if (status == "success" && !ok) || (status == "failure" && ok) {
			continue
		}
		list = append(list, d)
	}
	more := len(list) > per
	if more {
		list = list[:per]
	}
	out := make([]any, 0, len(list))
	for _, d := range list {
		out = append(out, deliveryItemJSON(d))
	}
	if more {
		next := c.base + "/app/hook/deliveries?" + pageQuery(per, list[len(list)-1].ID, status)
		c.w.Header().Set("Link", fmt.Sprintf("<%s>; rel=\"next\"", next))
	}
	return http.StatusOK, out, nil
}

func pageQuery(per int, lastID int64, status string) string {
	q := fmt.Sprintf("per_page=%d&cursor=v1_%d", per, lastID)
	if status != "" {
		q += "&status=" + status
	}
	return q
}

func (c *call) deliveryFor() (*Delivery, *apiError) {
	id, err := strconv.ParseInt(c.param("delivery_id"), 10, 64)
	if err != nil {
		return nil, errNotFound(c.rt.doc)
	}
	for _, d := range c.s.st.deliveries {
		if d.ID == id && d.AppID == c.who.app.id {
			return d, nil
		}
	}
	return nil, errNotFound(c.rt.doc)
}

// getDelivery serves GET /app/hook/deliveries/{delivery_id} (JWT).
func (s *Server) getDelivery(c *call) (int, any, *apiError) {
	d, e := c.deliveryFor()
	if e != nil {
		return 0, nil, e
	}
	out := deliveryItemJSON(d)
	var payload any
	if err := json.Unmarshal(d.Payload, &payload); err != nil {
		payload = nil
	}
	out["url"] = d.URL
	out["request"] = map[string]any{"headers": d.RequestHeaders, "payload": payload}
	var respHeaders any
	if d.ResponseHeaders != nil {
		respHeaders = d.ResponseHeaders
	}
	out["response"] = map[string]any{"headers": respHeaders, "payload": strOrNil(d.ResponseBody)}
	return http.StatusOK, out, nil
}

// redeliverDelivery serves POST /app/hook/deliveries/{delivery_id}/attempts
// (JWT): the same payload is sent again with the same X-GitHub-Delivery
// GUID. The attempt is made before the 202 is returned, so tests see it.
func (s *Server) redeliverDelivery(c *call) (int, any, *apiError) {
	s.mu.Lock()
	d, e := c.deliveryFor()
	if e != nil {
		s.mu.Unlock()
		return 0, nil, e
	}
	o := s.prepareRedelivery(d)
	s.mu.Unlock()
	s.deliver(o)
	return http.StatusAccepted, map[string]any{}, nil
}
