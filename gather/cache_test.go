package gather

import (
	"fmt"
	"testing"
)

func TestCacheBound(t *testing.T) {
	c := NewCache(1000)
	for i := range 20 {
		c.Add(fmt.Sprintf("k%d", i), i, 200)
		// Re-adding the same immutable content must not be counted twice.
		c.Add(fmt.Sprintf("k%d", i), i, 200)
	}
	if c.Bytes() > 1000 {
		t.Errorf("cache holds %d bytes, limit 1000", c.Bytes())
	}
	if c.lru.Len() != 5 {
		t.Errorf("cache holds %d entries of 200 bytes under a 1000-byte limit, want 5", c.lru.Len())
	}
	if v, ok := c.Get("k19"); !ok || v.(int) != 19 {
		t.Error("the newest entry was evicted")
	}
	if _, ok := c.Get("k0"); ok {
		t.Error("the oldest entry was kept past the limit")
	}
	c.Add("huge", "y", 400)
	if _, ok := c.Get("huge"); ok {
		t.Error("an entry over a quarter of the limit was cached")
	}
	var nilCache *Cache
	nilCache.Add("k", 1, 1)
	if _, ok := nilCache.Get("k"); ok {
		t.Error("a nil cache returned a value")
	}
}
