package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// TooLargeError says a file holds more than a reader accepts.
type TooLargeError struct {
	Path string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s", e.Path, Size(e.Max))
}

// Size writes a limit in words: "4 MiB", "64 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadAll reads r to its end, but no more than max bytes: a longer input
// is a *TooLargeError naming path. It never allocates more than max+1
// bytes beyond what it has read.
func ReadAll(r io.Reader, path string, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	return b, nil
}

// ErrInterrupted is wrapped by a read that its context cancelled.
var ErrInterrupted = errors.New("interrupted")

// ReadFile reads the file at path whole, no more than max bytes. Regular
// files, pipes and devices are read alike (bounded); a directory is
// refused. If ctx ends first (Ctrl-C), it returns at once with an error
// wrapping ErrInterrupted and ctx.Err(); a read blocked on a pipe is
// unblocked by closing the file.
func ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	return ReadFileHead(ctx, path, max, "")
}

// ErrWrongHead is wrapped by ReadFileHead for a file that does not start
// with the expected bytes.
var ErrWrongHead = errors.New("does not start as expected")

// ReadFileHead is ReadFile for a file that must start with head (a magic
// line): it reads len(head) bytes first and refuses a file that starts
// otherwise at once with an error wrapping ErrWrongHead, so a wrong file
// (or a device) costs no time however large it is.
func ReadFileHead(ctx context.Context, path string, max int64, head string) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	opened := make(chan *os.File, 1)
	go func() {
		// Opening a FIFO blocks until a writer comes: in here, so the
		// caller can still give up.
		f, err := os.Open(path)
		if err != nil {
			done <- result{err: err}
			return
		}
		opened <- f
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			done <- result{err: err}
			return
		}
		if st.IsDir() {
			done <- result{err: fmt.Errorf("%s is a directory, not a file", path)}
			return
		}
		if st.Mode().IsRegular() && st.Size() > max {
			done <- result{err: &TooLargeError{Path: path, Max: max}}
			return
		}
		var b []byte
		if head != "" {
			b = make([]byte, len(head))
			n, err := io.ReadFull(f, b)
			if string(b[:n]) != head {
				if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					done <- result{err: fmt.Errorf("read %s: %w", path, err)}
					return
				}
				done <- result{b: b[:n], err: fmt.Errorf("%s %w", path, ErrWrongHead)}
				return
			}
		}
		all, err := ReadAll(io.MultiReader(bytes.NewReader(b), f), path, max)
		done <- result{all, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		select {
		case f := <-opened:
			f.Close() // unblocks a read from a pipe
		default:
		}
		return nil, fmt.Errorf("reading %s: %w (%w)", path, ErrInterrupted, ctx.Err())
	}
}
