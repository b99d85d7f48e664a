// Command ferretdb-launcher runs an embedded FerretDB v1 (a MongoDB wire-compatible server)
// with the SQLite handler, storing its data under a local directory.
//
// It exists because `go install` of FerretDB's own command fails at startup in module mode
// (its build/version/version.txt is not part of the module). Embedding the public
// github.com/FerretDB/FerretDB/ferretdb package avoids that.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // profiles on -debug-addr only: the default mux is served nowhere else
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	dataDir := flag.String("data", "./.data/ferretdb", "directory that holds the SQLite databases")
	logLevel := flag.String("log-level", "warn", "log level: debug, info, warn or error")
	writeTimeout := flag.Duration("write-timeout", 30*time.Second, "longest time one write may hold its database's write lock (0 = no limit)")
	// WAL with synchronous=NORMAL: a commit reaches the OS, not the disk, so a killed process
	// loses nothing and only a machine crash may undo the last commits. FULL syncs every commit
	// while the write holds its database's write lock in the proxy (ADR 0023).
	syncMode := flag.String("sync", "normal", "SQLite synchronous mode: normal or full")
	debugAddr := flag.String("debug-addr", os.Getenv("FERRETDB_DEBUG_ADDR"), "address for Go profiles at /debug/pprof/ and write-lock times at /debug/writes, read times at /debug/reads (empty: none; default $FERRETDB_DEBUG_ADDR)")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fail("bad -log-level %q: %v", *logLevel, err)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	if *syncMode != "normal" && *syncMode != "full" {
		fail("bad -sync %q: normal or full", *syncMode)
	}

	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		fail("bad -data %q: %v", *dataDir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail("cannot create data directory %s: %v", dir, err)
	}

	// FerretDB itself listens on a private Unix socket; clients reach it through the
	// write-serializing proxy on the public address (see proxy.go).
	socket := filepath.Join(os.TempDir(), fmt.Sprintf("ferretdb-%d.sock", os.Getpid()))
	_ = os.Remove(socket)
	defer os.Remove(socket)

	public, err := net.Listen("tcp", *listen)
	if err != nil {
		fail("cannot listen on %s: %v", *listen, err)
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{Unix: socket},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/?_pragma=synchronous(" + *syncMode + ")",
	})
	if err != nil {
		fail("cannot start FerretDB: %v", err)
	}

	stats := newWriteStats()
	reads := newWriteStats()
	if *debugAddr != "" {
		http.Handle("/debug/writes", stats)
		http.Handle("/debug/reads", reads)
		go func() {
			logger.Warn("profiling endpoint stopped", "error", http.ListenAndServe(*debugAddr, nil))
		}()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	p := &proxy{backendNetwork: "unix", backendAddress: socket, writeTimeout: *writeTimeout, log: logger, stats: stats, reads: reads}
	go func() {
		<-ctx.Done()
		public.Close()
	}()
	// Whatever the log level: scripts and container health waits look for this line.
	fmt.Fprintf(os.Stderr, "ferretdb-launcher: listening on %s, data in %s\n", public.Addr().String(), dir)
	if err := p.serve(public); err != nil {
		fail("proxy stopped: %v", err)
	}
	if err := <-done; err != nil {
		fail("FerretDB stopped: %v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "ferretdb-launcher: "+format+"\n", args...)
	os.Exit(1)
}
