package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Options configure a Server.
type Options struct {
	// OnMessage is called, on the socket's goroutine, with what the page
	// chose. An error is shown on that page.
	OnMessage func(m Message) error
}

// Limits of what a page may send or hold open.
const (
	// maxMessage bounds one message from a page ({"action": ID}).
	maxMessage = 1 << 12
	// maxSockets bounds the open sockets (a few tabs are fine).
	maxSockets = 8
)

// Server serves one seat's page on 127.0.0.1. Its methods are safe for
// concurrent use.
type Server struct {
	opts   Options
	ln     net.Listener
	srv    *http.Server
	token  string
	host   string // 127.0.0.1:PORT, the only Host header accepted
	origin string // http://127.0.0.1:PORT, the only Origin accepted

	mu      sync.Mutex
	frame   []byte // the latest frame message, nil before the first
	version uint64
	subs    map[chan struct{}]*sub // each page's wake-up, and what it has
	closed  bool
	done    chan struct{}
}

// Start listens on a free port of 127.0.0.1 and serves the page.
func Start(opts Options) (*Server, error) {
	var tok [24]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve the browser view: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	s := &Server{
		opts:   opts,
		ln:     ln,
		token:  base64.RawURLEncoding.EncodeToString(tok[:]),
		host:   fmt.Sprintf("127.0.0.1:%d", port),
		origin: fmt.Sprintf("http://127.0.0.1:%d", port),
		subs:   map[chan struct{}]*sub{},
		done:   make(chan struct{}),
	}
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    1 << 14,
	}
	go s.srv.Serve(ln)
	return s, nil
}

// URL is the page's address, token included. Anyone who has it can play
// the seat, so it is printed only to the player.
func (s *Server) URL() string { return s.origin + "/" + s.token + "/" }

// Origin is the page's origin, http://127.0.0.1:PORT.
func (s *Server) Origin() string { return s.origin }

// Publish sends v (marshalled to JSON) to every page now and to every
// page that connects later, replacing the previous frame. Pages that are
// behind get only the latest frame.
func (s *Server) Publish(v any) error {
	b, err := json.Marshal(struct {
		Type  string `json:"type"`
		Frame any    `json:"frame"`
	}{"frame", v})
	if err != nil {
		return fmt.Errorf("browser view: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frame = b
	s.version++
	for c := range s.subs {
		select {
		case c <- struct{}{}:
		default: // a wake-up is pending already; it will read the latest
		}
	}
	return nil
}

// sub is one page's socket: the frame version it has and its queue of
// complaints to show.
type sub struct {
	sent uint64
	errs chan string
}

// Tell shows text as an error on every page (a move the table refused).
func (s *Server) Tell(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sb := range s.subs {
		report(sb.errs, text)
	}
}

// Close stops the server and closes every page's socket, after giving
// each page up to five seconds to get the latest frame (the final score).
// A second was too little for a browser on a loaded machine, still
// reading the frames before it: its page said "Disconnected" instead of
// showing the end (TestBrowserWatchesToTheEnd, once, in the CI's first
// step). A page that has the frame costs no wait.
func (s *Server) Close() error {
	for range 250 {
		if s.flushed() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		s.srv.Close()
	}
	return nil
}

// flushed reports whether every page has the latest frame.
func (s *Server) flushed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sb := range s.subs {
		if sb.sent != s.version {
			return false
		}
	}
	return true
}

// securityHeaders go on every answer: no framing, no sniffing, no
// caching, no referrer (the URL holds the token), scripts and styles
// from this server only, sockets to it only.
func (s *Server) securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src ws://"+s.host+"; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

func forbid(w http.ResponseWriter, why string) {
	http.Error(w, "403 forbidden: "+why, http.StatusForbidden)
}

// ServeHTTP checks the Host and the token, then serves an asset or the
// socket.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.securityHeaders(w.Header())
	if r.Host != s.host {
		forbid(w, "this page is served to http://"+s.host+" only")
		return
	}
	rest, ok := s.strip(r.URL.Path)
	if !ok {
		forbid(w, "the address lacks this session's token; open the URL boardmesh printed")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch rest {
	case "ws":
		s.serveSocket(w, r)
		return
	case "":
		rest = "index.html"
	}
	name := path.Clean(rest)
	if strings.HasPrefix(name, ".") || strings.Contains(name, "..") {
		http.NotFound(w, r)
		return
	}
	if st, err := fs.Stat(assets, name); err != nil || st.IsDir() {
		http.NotFound(w, r)
		return
	}
	http.ServeFileFS(w, r, assets, name)
}

// strip removes "/TOKEN/" from the front of p, comparing the token in
// constant time.
func (s *Server) strip(p string) (string, bool) {
	p = strings.TrimPrefix(p, "/")
	seg, rest, found := strings.Cut(p, "/")
	if !found || subtle.ConstantTimeCompare([]byte(seg), []byte(s.token)) != 1 {
		return "", false
	}
	return rest, true
}

// serveSocket upgrades a request whose Origin is exactly the page's own,
// then pushes frames and reads action ids until either side goes.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") != s.origin {
		forbid(w, "a socket may be opened only by the page at "+s.origin)
		return
	}
	wake := make(chan struct{}, 1)
	s.mu.Lock()
	if s.closed || len(s.subs) >= maxSockets {
		s.mu.Unlock()
		http.Error(w, "503 too many pages open", http.StatusServiceUnavailable)
		return
	}
	sb := &sub{errs: make(chan string, 4)}
	s.subs[wake] = sb
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, wake)
		s.mu.Unlock()
	}()
	// The Origin was checked above against the exact origin; Accept checks
	// it once more against the Host (which is ours).
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(maxMessage)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-s.done:
		case <-ctx.Done():
		}
		cancel()
	}()
	// The first frame goes out at once; a Publish since the registration
	// may have left a wake-up already, so this one must not block.
	select {
	case wake <- struct{}{}:
	default:
	}
	errs := sb.errs
	go s.readActions(ctx, cancel, c, errs)
	for {
		select {
		case <-ctx.Done():
			c.Close(websocket.StatusGoingAway, "the game has stopped")
			return
		case text := <-errs:
			b, _ := json.Marshal(struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}{"error", text})
			if write(ctx, c, b) != nil {
				return
			}
		case <-wake:
			s.mu.Lock()
			frame, v, have := s.frame, s.version, sb.sent
			s.mu.Unlock()
			if frame == nil || v == have {
				continue
			}
			if write(ctx, c, frame) != nil {
				return
			}
			s.mu.Lock()
			sb.sent = v
			s.mu.Unlock()
		}
	}
}

func write(ctx context.Context, c *websocket.Conn, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, b)
}

// Message is what a page sends: the id of the action it chose, and the
// step of the frame it chose it on.
type Message struct {
	Action string `json:"action"`
	Step   uint64 `json:"step"`
}

// readActions reads the page's messages and hands action ids to
// OnAction; anything else is answered with an error and otherwise
// ignored.
func (s *Server) readActions(ctx context.Context, cancel context.CancelFunc, c *websocket.Conn, errs chan<- string) {
	defer cancel()
	for {
		typ, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var m Message
		if typ != websocket.MessageText || json.Unmarshal(b, &m) != nil || m.Action == "" {
			report(errs, "the page sent something that is not an action")
			continue
		}
		if s.opts.OnMessage == nil {
			report(errs, "this page only watches: it cannot act")
			continue
		}
		if err := s.opts.OnMessage(m); err != nil {
			report(errs, err.Error())
		}
	}
}

func report(errs chan<- string, text string) {
	select {
	case errs <- text:
	default: // the page is not reading; drop the complaint
	}
}

// ErrStale is what OnAction returns for an id from a decision that is no
// longer current (the page was behind).
var ErrStale = errors.New("that choice is no longer open: the table has moved on")
