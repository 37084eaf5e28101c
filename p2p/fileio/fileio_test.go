package fileio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileBounded(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o600)
	b, err := ReadFile(context.Background(), small, 5)
	if err != nil || string(b) != "hello" {
		t.Fatalf("small file: %q %v", b, err)
	}
	_, err = ReadFile(context.Background(), small, 4)
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != small+" is larger than 4 bytes" {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := ReadFile(context.Background(), dir, 10); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("directory: %v", err)
	}
}

// TestReadFileDevice: a device has no size (stat says 0), so the bound is
// on the bytes read: /dev/urandom is refused after the limit, not read
// until memory runs out.
func TestReadFileDevice(t *testing.T) {
	_, err := ReadFile(context.Background(), "/dev/urandom", 1<<20)
	if err == nil || err.Error() != "/dev/urandom is larger than 1 MiB" {
		t.Fatalf("err = %v", err)
	}
	// With a head to check, a wrong file is refused at once.
	_, err = ReadFileHead(context.Background(), "/dev/zero", 1<<30, "boardmesh log v1\n")
	if !errors.Is(err, ErrWrongHead) {
		t.Fatalf("err = %v", err)
	}
}

// TestReadFileFIFOCancel: a read from a FIFO that no one writes (or that
// never ends) stops when the context is cancelled, as Ctrl-C does.
func TestReadFileFIFOCancel(t *testing.T) {
	dir := t.TempDir()
	for _, writer := range []bool{false, true} {
		// A FIFO of its own per case: the first case's abandoned open is
		// let go (below) only at the end, on this very FIFO.
		fifo := filepath.Join(dir, fmt.Sprintf("fifo-writer-%v", writer))
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		if writer {
			// A writer that opens the FIFO, writes a little and then
			// neither writes nor closes until the read has returned (a
			// fixed sleep here let the read end by the writer's close on
			// a loaded machine, not by the cancel).
			release := make(chan struct{})
			defer close(release)
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err == nil {
					f.Write([]byte("boardmesh"))
					<-release
					f.Close()
				}
			}()
		}
		ctx, cancel := context.WithCancel(context.Background())
		res := make(chan error, 1)
		go func() {
			_, err := ReadFile(ctx, fifo, 1<<20)
			res <- err
		}()
		time.Sleep(100 * time.Millisecond)
		cancel()
		if !writer {
			// Let the abandoned open finish, so no thread stays blocked.
			defer func() {
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			}()
		}
		select {
		case err := <-res:
			if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
				t.Fatalf("writer %v: err = %v", writer, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("writer %v: the read did not stop after cancel", writer)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 256 << 20: "256 MiB", 64 << 10: "64 KiB", 100: "100 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
