package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func get(t *testing.T, url string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestTokenRequired: the page and every asset need the session's token;
// without it, or with another token, the answer is 403 and no asset.
func TestTokenRequired(t *testing.T) {
	s := start(t, Options{})
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %s is not on 127.0.0.1", s.URL())
	}
	code, body, hdr := get(t, s.URL(), nil)
	if code != 200 || !strings.Contains(body, "<script") {
		t.Fatalf("the page with its token: %d %q", code, body)
	}
	if hdr.Get("Access-Control-Allow-Origin") != "" || !strings.Contains(hdr.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("headers: %v", hdr)
	}
	wrong := strings.Repeat("A", len(s.token))
	for _, u := range []string{
		s.Origin() + "/",
		s.Origin() + "/app.js",
		s.Origin() + "/index.html",
		s.Origin() + "/" + wrong + "/",
		s.Origin() + "/" + wrong + "/app.js",
		s.Origin() + "/" + s.token, // no slash: not the token segment
		s.Origin() + "/" + s.token[:len(s.token)-1] + "/app.js",
		s.Origin() + "/ws",
		s.Origin() + "/favicon.ico",
	} {
		code, body, hdr := get(t, u, nil)
		if code != 403 || strings.Contains(body, "<script") || strings.Contains(body, "function") {
			t.Errorf("GET %s: %d %q, want 403 and nothing of the page", u, code, body)
		}
		if hdr.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("GET %s: CORS header %q", u, hdr.Get("Access-Control-Allow-Origin"))
		}
	}
	if code, _, _ := get(t, s.URL()+"app.js", nil); code != 200 {
		t.Errorf("app.js with the token: %d", code)
	}
	if code, _, _ := get(t, s.URL()+"../"+s.token+"/nope.js", nil); code != 404 {
		t.Errorf("a missing asset: %d, want 404", code)
	}
}

// TestHostChecked: a page of another name that resolves to 127.0.0.1 (DNS
// rebinding) sends its own Host header and gets 403, token or not.
func TestHostChecked(t *testing.T) {
	s := start(t, Options{})
	port := strings.TrimPrefix(s.Origin(), "http://127.0.0.1")
	for _, host := range []string{"evil.example" + port, "localhost" + port, "127.0.0.1", "127.0.0.1:1"} {
		code, body, _ := get(t, s.URL(), map[string]string{"Host": host})
		if code != 403 || strings.Contains(body, "<script") {
			t.Errorf("Host %s: %d %q, want 403", host, code, body)
		}
	}
}

func dial(ctx context.Context, s *Server, origin string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.URL(), "http")+"ws", &websocket.DialOptions{HTTPHeader: h})
}

// TestSocketOrigin: only the page's own origin may open the socket: another
// origin, a missing Origin, another host or a missing token get 403.
func TestSocketOrigin(t *testing.T) {
	acted := make(chan string, 1)
	s := start(t, Options{OnMessage: func(m Message) error { acted <- m.Action; return nil }})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, origin := range []string{"http://evil.example", "null", "http://localhost" + strings.TrimPrefix(s.Origin(), "http://127.0.0.1"), "https://127.0.0.1" + strings.TrimPrefix(s.Origin(), "http://127.0.0.1"), ""} {
		c, resp, err := dial(ctx, s, origin)
		if err == nil {
			c.CloseNow()
			t.Errorf("Origin %q: the socket opened", origin)
			continue
		}
		if resp == nil || resp.StatusCode != 403 {
			t.Errorf("Origin %q: %v, want 403", origin, err)
		}
	}
	// A rebinding page's upgrade carries its own Host (and, to pass the
	// Origin check, would need ours): refused.
	code, body, _ := get(t, s.URL()+"ws", map[string]string{"Host": "rebound.example" + strings.TrimPrefix(s.Origin(), "http://127.0.0.1"),
		"Origin": s.Origin(), "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
	if code != 403 || !strings.Contains(body, "served to http://127.0.0.1") {
		t.Errorf("an upgrade with a foreign Host: %d %q, want 403 for the host", code, body)
	}
	h := http.Header{"Origin": {s.Origin()}}
	if c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.Origin(), "http")+"/ws", &websocket.DialOptions{HTTPHeader: h}); err == nil {
		c.CloseNow()
		t.Error("a socket without the token opened")
	} else if resp == nil || resp.StatusCode != 403 {
		t.Errorf("no token: %v, want 403", err)
	}
	select {
	case id := <-acted:
		t.Fatalf("a refused socket acted: %s", id)
	default:
	}
}

// TestFramesAndActions: a page gets the latest frame on connecting and
// every later one, and its action ids reach OnAction; an error from
// OnAction comes back to that page.
func TestFramesAndActions(t *testing.T) {
	acted := make(chan string, 4)
	s := start(t, Options{OnMessage: func(m Message) error {
		acted <- m.Action
		if m.Action == "old" {
			return ErrStale
		}
		return nil
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Publish(map[string]int{"step": 1}); err != nil {
		t.Fatal(err)
	}
	c, _, err := dial(ctx, s, s.Origin())
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	read := func() map[string]any {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := read(); m["type"] != "frame" || m["frame"].(map[string]any)["step"] != 1.0 {
		t.Fatalf("first message %v", m)
	}
	s.Publish(map[string]int{"step": 2})
	if m := read(); m["frame"].(map[string]any)["step"] != 2.0 {
		t.Fatalf("second message %v", m)
	}
	c.Write(ctx, websocket.MessageText, []byte(`{"action":"2.1"}`))
	if id := <-acted; id != "2.1" {
		t.Fatalf("acted %q", id)
	}
	c.Write(ctx, websocket.MessageText, []byte(`{"action":"old"}`))
	<-acted
	if m := read(); m["type"] != "error" || !strings.Contains(m["text"].(string), "no longer open") {
		t.Fatalf("stale action answered %v", m)
	}
	c.Write(ctx, websocket.MessageText, []byte(`not json`))
	if m := read(); m["type"] != "error" {
		t.Fatalf("garbage answered %v", m)
	}
	// A message over the limit closes the socket rather than being read.
	big := `{"action":"` + strings.Repeat("x", maxMessage) + `"}`
	c.Write(ctx, websocket.MessageText, []byte(big))
	if _, _, err := c.Read(ctx); err == nil {
		t.Fatal("the socket stayed open after an oversized message")
	}
	select {
	case id := <-acted:
		t.Fatalf("an oversized message acted: %d bytes", len(id))
	default:
	}
	s.Close()
	if _, _, err := dial(ctx, s, s.Origin()); err == nil {
		t.Fatal("dialled a closed server")
	}
}

// TestSocketsBounded: past maxSockets pages, a new socket is refused.
func TestSocketsBounded(t *testing.T) {
	s := start(t, Options{})
	s.Publish(1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range maxSockets {
		c, _, err := dial(ctx, s, s.Origin())
		if err != nil {
			t.Fatalf("socket %d: %v", i+1, err)
		}
		defer c.CloseNow()
		c.Read(ctx) // the first frame: the socket is registered
	}
	c, resp, err := dial(ctx, s, s.Origin())
	if err == nil {
		c.CloseNow()
		t.Fatal("one socket too many opened")
	}
	var ce websocket.CloseError
	if resp == nil || resp.StatusCode != 503 || errors.As(err, &ce) {
		t.Fatalf("one too many: %v", err)
	}
}

// TestFirstFrameWhilePublishing: a page that connects while frames are
// being published (a ticking timer) gets one at once. (A wake-up left by
// a Publish between the socket's registration and its first send once
// blocked the socket for good.)
func TestFirstFrameWhilePublishing(t *testing.T) {
	s := start(t, Options{})
	s.Publish(0)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
				s.Publish(i)
			}
		}
	}()
	for n := range 30 {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		c, _, err := dial(ctx, s, s.Origin())
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		if _, _, err := c.Read(ctx); err != nil {
			cancel()
			t.Fatalf("connection %d got no frame: %v", n+1, err)
		}
		c.CloseNow()
		cancel()
		// The server lets a socket go only once it sees the close; wait
		// for that, or thirty quick pages would meet the bound of eight
		// (a busy machine once answered the ninth with 503).
		waitSockets(t, s, 0)
	}
}

// waitSockets waits up to 5 s until the server holds n sockets.
func waitSockets(t *testing.T, s *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		have := len(s.subs)
		s.mu.Unlock()
		if have == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server still holds %d sockets, want %d", have, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
