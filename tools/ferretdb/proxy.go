package main

import (
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
// one mutating command at a time be in flight. Reads stay concurrent.

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
	writes       sync.Mutex
	log          *slog.Logger
	stats        *writeStats
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
		p.writes.Lock()
		defer p.writes.Unlock()
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
