package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"sort"
	"sync"
	"time"
)

// writeStats records, per command and namespace, how long writes waited for the write lock and
// how long they held it, so a benchmark can tell which writes make the others wait. Served as
// JSON at /debug/writes on -debug-addr; the reads' answer times, kept the same way (no wait),
// at /debug/reads.
type writeStats struct {
	mu   sync.Mutex
	byNs map[string]*writeStat
}

type writeStat struct {
	Count  int64   `json:"count"`
	WaitMs float64 `json:"waitMs"`
	HoldMs float64 `json:"holdMs"`
	MaxMs  float64 `json:"maxHoldMs"`
}

func newWriteStats() *writeStats { return &writeStats{byNs: map[string]*writeStat{}} }

func (s *writeStats) add(key string, wait, hold time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.byNs[key]
	if st == nil {
		st = &writeStat{}
		s.byNs[key] = st
	}
	st.Count++
	st.WaitMs += float64(wait.Microseconds()) / 1000
	h := float64(hold.Microseconds()) / 1000
	st.HoldMs += h
	if h > st.MaxMs {
		st.MaxMs = h
	}
}

// ServeHTTP answers the totals, the writes that held the lock longest in all first.
func (s *writeStats) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	type row struct {
		Write string `json:"write"`
		writeStat
	}
	rows := make([]row, 0, len(s.byNs))
	for k, v := range s.byNs {
		rows = append(rows, row{k, *v})
	}
	s.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool { return rows[i].HoldMs > rows[j].HoldMs })
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(rows)
}

// commandOf names an OP_MSG's command as "<command> <db>.<collection>" ("" if it is not one).
func commandOf(msg []byte) string {
	body := bodyOf(msg)
	if body == nil {
		return ""
	}
	name := firstKey(body)
	collection := ""
	// The first element's value is the collection name when it is a string (type 0x02).
	if len(body) > 4 && body[4] == 0x02 {
		collection = stringAt(body, 5+len(name)+1)
	} else if i := bytes.Index(body, []byte("\x02collection\x00")); i >= 0 {
		// getMore names its collection in a later field.
		collection = stringAt(body, i+12)
	}
	return name + " " + databaseOf(msg) + "." + collection
}

// stringAt reads a BSON string (int32 length, bytes, NUL) at offset i.
func stringAt(doc []byte, i int) string {
	if i+4 > len(doc) {
		return ""
	}
	n := int(int32(binary.LittleEndian.Uint32(doc[i : i+4])))
	if n < 1 || i+4+n > len(doc) {
		return ""
	}
	return string(doc[i+4 : i+4+n-1])
}
