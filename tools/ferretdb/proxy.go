package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"
)

// FerretDB v1 executes an update, delete or findAndModify as "query, then write" without
// isolation, so two connections can both match the same guarded filter (for example
// {_id, version: 3}) and both apply. MongoDB guarantees single-document atomicity, and the
// services rely on it. The launcher restores that guarantee by letting clients reach FerretDB
// only through this proxy, which forwards MongoDB wire-protocol messages unchanged but lets only
// one mutating command per database at a time be in flight. A document belongs to one database,
// and the SQLite backend keeps each database in a file of its own, so writes to different
// databases (one service's and another's) need not wait for each other. Reads stay concurrent.

const (
	opMsg          = 2013
	flagChecksum   = 1 << 0
	flagMoreToCome = 1 << 1
	maxMessage     = 48 * 1024 * 1024
)

// mutating lists the commands whose execution must not interleave with another write.
var mutating = map[string]bool{
	"insert": true, "update": true, "delete": true, "findAndModify": true, "findandmodify": true,
	"create": true, "createIndexes": true, "drop": true, "dropIndexes": true, "dropDatabase": true,
	"renameCollection": true, "collMod": true,
}

type proxy struct {
	backendNetwork, backendAddress string
	// writeTimeout bounds how long one mutating command may hold the write lock. FerretDB v1 never
	// answers some commands (an update of 100+ statements); without a bound every later write
	// would wait forever. On expiry that connection is closed, so its client gets an error.
	writeTimeout time.Duration
	// locks holds one write lock per database ($db), made on first use.
	locks sync.Map
	log   *slog.Logger
	stats *writeStats
	// reads records the other commands: how long FerretDB took to answer each (its "hold").
	reads *writeStats
}

func (p *proxy) serve(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go p.handle(c)
	}
}

func (p *proxy) handle(client net.Conn) {
	defer client.Close()
	backend, err := p.dial()
	if err != nil {
		p.log.Error("cannot reach FerretDB", "error", err)
		return
	}
	defer backend.Close()
	for {
		if err := p.exchange(client, backend); err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				p.log.Debug("connection ended", "error", err)
			}
			return
		}
	}
}

// dial connects to FerretDB, waiting briefly for its listener while it starts.
func (p *proxy) dial() (net.Conn, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial(p.backendNetwork, p.backendAddress)
		if err == nil || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// exchange forwards one request and every reply it asks for.
func (p *proxy) exchange(client, backend net.Conn) error {
	req, err := readMessage(client)
	if err != nil {
		return err
	}
	if !isMutating(req) {
		started := time.Now()
		defer func() { p.reads.add(commandOf(req), 0, time.Since(started)) }()
	} else {
		queued := time.Now()
		lock := p.writeLock(databaseOf(req))
		lock.Lock()
		defer lock.Unlock()
		locked := time.Now()
		defer func() { p.stats.add(commandOf(req), locked.Sub(queued), time.Since(locked)) }()
		if p.writeTimeout > 0 {
			_ = backend.SetReadDeadline(time.Now().Add(p.writeTimeout))
			defer func() { _ = backend.SetReadDeadline(time.Time{}) }()
		}
	}
	if _, err := backend.Write(req); err != nil {
		return err
	}
	if moreToCome(req) {
		return nil // fire-and-forget request: the server sends no reply
	}
	for {
		resp, err := readMessage(backend)
		if err != nil {
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				p.log.Error("FerretDB did not answer a write in time; closing that connection", "timeout", p.writeTimeout.String())
			}
			return err
		}
		if _, err := client.Write(resp); err != nil {
			return err
		}
		if !moreToCome(resp) {
			return nil
		}
	}
}

// writeLock is the lock of one database's writes.
func (p *proxy) writeLock(db string) *sync.Mutex {
	lock, _ := p.locks.LoadOrStore(db, &sync.Mutex{})
	return lock.(*sync.Mutex)
}

func readMessage(r io.Reader) ([]byte, error) {
	var header [16]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return nil, err
	}
	size := int(int32(binary.LittleEndian.Uint32(header[0:4])))
	if size < 16 || size > maxMessage {
		return nil, fmt.Errorf("bad message length %d", size)
	}
	msg := make([]byte, size)
	copy(msg, header[:])
	if _, err := io.ReadFull(r, msg[16:]); err != nil {
		return nil, err
	}
	return msg, nil
}

func opCode(msg []byte) int32 { return int32(binary.LittleEndian.Uint32(msg[12:16])) }

func moreToCome(msg []byte) bool {
	return opCode(msg) == opMsg && len(msg) >= 20 && binary.LittleEndian.Uint32(msg[16:20])&flagMoreToCome != 0
}

// isMutating reads the command name: the first key of the OP_MSG body section (kind 0).
func isMutating(msg []byte) bool {
	body := bodyOf(msg)
	return body != nil && mutating[firstKey(body)]
}

// bodyOf returns an OP_MSG's body section (kind 0): the command document; nil if there is none.
func bodyOf(msg []byte) []byte {
	if opCode(msg) != opMsg || len(msg) < 21 {
		return nil
	}
	end := len(msg)
	if binary.LittleEndian.Uint32(msg[16:20])&flagChecksum != 0 {
		end -= 4
	}
	for i := 20; i < end; {
		kind := msg[i]
		i++
		if i+4 > end {
			return nil
		}
		size := int(int32(binary.LittleEndian.Uint32(msg[i : i+4])))
		if size < 5 || i+size > end {
			return nil
		}
		if kind == 0 {
			return msg[i : i+size]
		}
		i += size
	}
	return nil
}

// databaseOf reads an OP_MSG command's database: the top-level "$db" string of its body. A
// command without one (none should be) shares the lock of the database named "".
func databaseOf(msg []byte) string {
	body := bodyOf(msg)
	if body == nil {
		return ""
	}
	for i := 4; i < len(body)-1; {
		kind := body[i]
		nameEnd := bytes.IndexByte(body[i+1:], 0)
		if kind == 0 || nameEnd < 0 {
			return ""
		}
		name := string(body[i+1 : i+1+nameEnd])
		value := i + 1 + nameEnd + 1
		if name == "$db" && kind == 0x02 {
			return stringAt(body, value)
		}
		size := bsonValueSize(body, kind, value)
		if size < 0 {
			return ""
		}
		i = value + size
	}
	return ""
}

// bsonValueSize is the length of the BSON value of type kind at offset i, or -1 if it is not
// one this walk knows or runs past the document.
func bsonValueSize(doc []byte, kind byte, i int) int {
	int32At := func(at int) int {
		if at+4 > len(doc) {
			return -1
		}
		return int(int32(binary.LittleEndian.Uint32(doc[at : at+4])))
	}
	size := -1
	switch kind {
	case 0x01, 0x09, 0x11, 0x12: // double, date, timestamp, int64
		size = 8
	case 0x02, 0x0D, 0x0E: // string, JavaScript, symbol: int32 length, then the bytes
		if n := int32At(i); n >= 1 {
			size = 4 + n
		}
	case 0x03, 0x04, 0x0F: // document, array, code with scope: their int32 total size
		size = int32At(i)
	case 0x05: // binary: int32 length, subtype, bytes
		if n := int32At(i); n >= 0 {
			size = 5 + n
		}
	case 0x06, 0x0A, 0x7F, 0xFF: // undefined, null, max key, min key
		size = 0
	case 0x07: // ObjectId
		size = 12
	case 0x08: // bool
		size = 1
	case 0x0B: // regex: two C strings
		first := bytes.IndexByte(doc[min(i, len(doc)):], 0)
		if first >= 0 {
			if second := bytes.IndexByte(doc[i+first+1:], 0); second >= 0 {
				size = first + 1 + second + 1
			}
		}
	case 0x0C: // DBPointer: string, then an ObjectId
		if n := int32At(i); n >= 1 {
			size = 4 + n + 12
		}
	case 0x10: // int32
		size = 4
	case 0x13: // decimal128
		size = 16
	}
	if size < 0 || i+size > len(doc) {
		return -1
	}
	return size
}

// firstKey returns the name of a BSON document's first element ("" if it has none).
func firstKey(doc []byte) string {
	if len(doc) < 6 || doc[4] == 0 {
		return ""
	}
	for j := 5; j < len(doc); j++ {
		if doc[j] == 0 {
			return string(doc[5:j])
		}
	}
	return ""
}
