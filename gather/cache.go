package gather

import (
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Cache keeps what was read at an immutable revision (contents at a commit
// SHA, a commit's tree, a blob), bounded by bytes. Entries never go
// stale: what a SHA names never changes. Safe for concurrent use; the App
// shares one across jobs.
type Cache struct {
	mu    sync.Mutex
	lru   *lru.Cache[string, cached]
	bytes int
	limit int
}

type cached struct {
	v    any
	size int
}

// NewCache returns a cache holding up to limitBytes (by the sizes given to
// Add).
func NewCache(limitBytes int) *Cache {
	c := &Cache{limit: limitBytes}
	c.lru, _ = lru.NewWithEvict[string, cached](1<<16, func(_ string, v cached) { c.bytes -= v.size })
	return c
}

// Get returns the value stored under key.
func (c *Cache) Get(key string) (any, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.lru.Get(key)
	return v.v, ok
}

// Add stores v under key, counting size bytes; a value over a quarter of
// the limit is not kept. Two readers can fetch the same thing at once: the
// content behind a key is immutable, so the second copy is dropped.
func (c *Cache) Add(key string, v any, size int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.limit/4 || c.lru.Contains(key) {
		return
	}
	c.lru.Add(key, cached{v: v, size: size})
	c.bytes += size
	for c.bytes > c.limit {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

// Bytes is how much the cache holds.
func (c *Cache) Bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
