package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "write the browser tests' screenshots into docs/img")

// init keeps the boardmesh processes the tests start from opening pages in
// the desktop's browser (xdg-open needs a display): the tests drive their
// own headless Chromium.
func init() {
	os.Unsetenv("DISPLAY")
	os.Unsetenv("WAYLAND_DISPLAY")
}

// chromium finds Debian's chromium. CI installs it (.ci/run), so there a
// missing browser fails the test; elsewhere the test says what to install.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; .ci/run installs it (apt-get install chromium)")
	}
	t.Skip("the browser tests need chromium: apt-get install chromium")
	return ""
}

// browser starts a headless Chromium of the test's own (a fresh profile,
// no background networking: the machine has no network) and returns a
// context for its first tab. rebind.test resolves to 127.0.0.1, as a DNS
// rebinding attacker's name would.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1600, 1000),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-default-apps", true), chromedp.Flag("disable-extensions", true),
		chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"),
		// Each page gets a tab of its own; a tab in the background must
		// run as one in front does.
		chromedp.Flag("disable-background-timer-throttling", true), chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// console collects the tab's console errors and exceptions.
type console struct {
	mu   sync.Mutex
	errs []string
}

func watchConsole(ctx context.Context) *console {
	c := &console{}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				c.mu.Lock()
				c.errs = append(c.errs, m.String()+" at "+m.URL)
				c.mu.Unlock()
			}
		}
	}()
	return c
}

func (c *console) check(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.errs {
		t.Errorf("JavaScript console: %s", e)
	}
}

// pageURL waits for the URL a --web command prints on stderr.
func (p *proc) pageURL(t *testing.T, timeout time.Duration) string {
	t.Helper()
	re := regexp.MustCompile(`Your seat in the browser: (http://127\.0\.0\.1:\d+/\S+/)`)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		m := re.FindStringSubmatch(p.stderr.String())
		p.mu.Unlock()
		if m != nil {
			return m[1]
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited (%v) before printing its page; stderr %s", p.name, p.err, p.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("%s printed no page URL within %s; stderr %s", p.name, timeout, p.stderr.String())
	return ""
}

// waitJS polls the expression until it is true or timeout passes, and
// reports whether it became true.
func waitJS(t *testing.T, ctx context.Context, expr string, timeout time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		if ok {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// choice is what the page offers now, read from its DOM.
type choice struct {
	Step    string   `json:"step"`
	Board   []string `json:"board"`
	Buttons []string `json:"buttons"`
	Labels  []string `json:"labels"`
}

const readChoice = `(() => {
  const b = document.body;
  if (!b.classList.contains('myturn') || b.classList.contains('sent') || b.classList.contains('gone')) return null;
  // A sensible player buys no Curse.
  const board = [...document.querySelectorAll('#board [data-action]')].filter(e => !/^Buy Curse/.test(e.getAttribute('aria-label'))).map(e => e.getAttribute('data-action'));
  const btns = [...document.querySelectorAll('#buttons button[data-action]')];
  return {step: b.dataset.step || '', board, buttons: btns.map(e => e.getAttribute('data-action')), labels: btns.map(e => e.textContent)};
})()`

// calm are the buttons a test player prefers when it clicks a button:
// they end a turn or a question without starting a side show (a trade).
var calm = regexp.MustCompile(`^(End|Escape|Keep|Stop|Done|Decline|No |Pass|Don't|Do not|Play all Treasures)`)

// clickOnce waits for the page to offer a choice and makes it with a real
// mouse click: on the board most of the time, a button every fourth
// click (and whenever the board offers nothing). It returns whether it
// clicked the board.
func clickOnce(t *testing.T, ctx context.Context, n int, timeout time.Duration) (bool, bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var c *choice
	for time.Now().Before(deadline) {
		var err error
		c, err = chromedp.Run(ctx, chromedp.Evaluate[*choice](readChoice))
		if err != nil {
			t.Fatalf("read the page: %v", err)
		}
		if c != nil && (len(c.Board) > 0 || len(c.Buttons) > 0) {
			break
		}
		c = nil
		time.Sleep(100 * time.Millisecond)
	}
	if c == nil {
		return false, false
	}
	id, onBoard := "", false
	btn := ""
	for i, l := range c.Labels {
		if calm.MatchString(l) {
			btn = c.Buttons[i]
			break
		}
	}
	switch {
	case len(c.Board) > 0 && (n%4 != 3 || btn == ""):
		// The middle of what the board offers: a city grows compactly, a
		// hand's cards are played, a road's pawns move on.
		id, onBoard = c.Board[(len(c.Board)*(n%3+1))/4], true
	case btn != "":
		id = btn
	default:
		id = c.Buttons[0]
	}
	sel := fmt.Sprintf(`#board [data-action=%q]`, id)
	if !onBoard {
		sel = fmt.Sprintf(`#buttons button[data-action=%q]`, id)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(cctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
	// The click counts once the page has a new decision (or none).
	for time.Now().Before(deadline) {
		step, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.step + (document.body.classList.contains('sent') ? 's' : '')`))
		if err != nil {
			t.Fatal(err)
		}
		if step != c.Step && !strings.HasSuffix(step, "s") {
			return true, onBoard
		}
		time.Sleep(50 * time.Millisecond)
	}
	why, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`'step ' + BM.frame.step + ', busy ' + !!BM.frame.busy + ', status ' + BM.frame.status + ', toast ' + document.getElementById('toast').innerText + ', body ' + document.body.className`))
	t.Fatalf("clicking %s did not move the game on (step %s): %s", sel, c.Step, why)
	return false, false
}

// screenshot saves the page: into docs/img with -update-screenshots, else
// beside the test's other files.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := t.TempDir()
	if *updateScreenshots {
		dir = filepath.Join("..", "..", "docs", "img")
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserPlaysEveryGame: for each game, `boardmesh play GAME --web`
// (the player and its bots are real libp2p peers on loopback) serves the
// seat's page; headless Chromium plays several turns by clicking the
// board and the buttons, the history shows the player's moves and the
// bots', the sync line says the peers agree, and the console stays clean.
func TestBrowserPlaysEveryGame(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	for _, game := range []string{"dominion", "infinitecity", "serpentcity", "dragonslair"} {
		t.Run(game, func(t *testing.T) {
			pctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			p := start(t, pctx, "play", "play", game, "--web", "--home", t.TempDir(), "--delay", "30ms", "--seed", "web-"+game)
			url := p.pageURL(t, 30*time.Second)
			t.Logf("%s: page at %s", time.Now().Format("15:04:05.000"), url)
			tab, closeTab := chromedp.NewContext(ctx)
			defer closeTab()
			con := watchConsole(tab)
			if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil || !waitJS(t, tab, `!!document.querySelector('#board svg')`, 30*time.Second) {
				board, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('board').innerText + ' | ' + document.getElementById('status').innerText + ' | socket ' + (BM.sock ? BM.sock.readyState : 'none') + ' | toast ' + document.getElementById('toast').innerText`))
				con.check(t)
				t.Fatalf("open %s: %v; the page shows %q", url, err, board)
			}
			t.Logf("%s: page open", time.Now().Format("15:04:05.000"))
			clicks, onBoard := 0, 0
			for n := 0; clicks < 10 && n < 40; n++ {
				ok, board := clickOnce(t, tab, n, 60*time.Second)
				if !ok {
					break
				}
				clicks++
				if board {
					onBoard++
				}
			}
			t.Logf("%s: %d clicks", time.Now().Format("15:04:05.000"), clicks)
			if clicks < 10 || onBoard < 3 {
				t.Fatalf("made %d moves (%d on the board), want 10 (3 on the board)", clicks, onBoard)
			}
			// Wait for our next decision, so the picture shows what to click
			// (unless the game has ended).
			waitJS(t, tab, `!!document.querySelector('body.myturn #board svg') || !document.getElementById('over').hidden`, 20*time.Second)
			hist, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#history li')].map(e => e.textContent)`))
			if err != nil {
				t.Fatal(err)
			}
			var mine, bots int
			for _, h := range hist {
				if strings.HasPrefix(h, "you (seat") {
					mine++
				}
				if strings.HasPrefix(h, "bot") {
					bots++
				}
			}
			if mine < 5 || bots < 1 {
				t.Errorf("the history has %d moves of yours and %d of bots:\n%s", mine, bots, strings.Join(hist, "\n"))
			}
			sync, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('sync').textContent`))
			if !strings.Contains(sync, "agree") {
				t.Errorf("sync line %q does not say the peers agree", sync)
			}
			time.Sleep(300 * time.Millisecond) // let the highlight settle
			screenshot(t, tab, game)
			con.check(t)
			// Stop the peer before the tab goes: the page's socket closes
			// from the server's side, as when a player quits.
			p.cmd.Process.Kill()
			<-p.done
			waitJS(t, tab, `document.body.classList.contains('gone')`, 10*time.Second)
		})
	}
}

// TestBrowserSecurity: the page is reachable only with its token, only
// under the name 127.0.0.1 (a rebinding name gets 403 in the browser), and
// no other page in the same browser can open its socket, even knowing
// the token.
func TestBrowserSecurity(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	pctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := start(t, pctx, "play", "play", "dragonslair", "--web", "--home", t.TempDir(), "--delay", "200ms", "--seed", "web-security")
	url := p.pageURL(t, 30*time.Second)
	m := regexp.MustCompile(`^(http://127\.0\.0\.1:(\d+))/([^/]+)/$`).FindStringSubmatch(url)
	origin, port, token := m[1], m[2], m[3]
	for _, u := range []string{origin + "/", origin + "/app.js", origin + "/ws", origin + "/x" + token + "/"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("GET %s without the token: %d, want 403", u, resp.StatusCode)
		}
	}
	if resp, err := http.Get(url); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET the page with its token: %v %v", resp, err)
	}

	// DNS rebinding: the browser asks rebind.test, which resolves to us.
	tab, closeTab := chromedp.NewContext(ctx)
	defer closeTab()
	resp, err := chromedp.Run(tab, chromedp.NavigateResponse("http://rebind.test:"+port+"/"+token+"/"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.body.innerText`))
	if resp.Status != 403 || strings.Contains(body, "Players") {
		t.Errorf("the page under a rebinding name: %d %q, want 403", resp.Status, body)
	}

	// Another origin's page tries the socket, token and all.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<title>trying</title><script>
const ws = new WebSocket("ws://127.0.0.1:%s/%s/ws");
ws.onopen = () => { document.title = "OPEN"; };
ws.onmessage = (m) => { document.title = "READ " + m.data.slice(0, 20); };
ws.onclose = () => { if (!document.title.startsWith("READ") && document.title !== "OPEN") document.title = "REFUSED"; };
</script>`, port, token)
	}))
	defer evil.Close()
	etab, closeEvil := chromedp.NewContext(ctx)
	defer closeEvil()
	if err := chromedp.Do(etab, chromedp.Navigate(evil.URL)); err != nil {
		t.Fatal(err)
	}
	var title string
	for range 100 {
		title, _ = chromedp.Run(etab, chromedp.Title())
		if title != "trying" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if title != "REFUSED" {
		t.Errorf("a page of %s opening the socket: %q, want it refused", evil.URL, title)
	}

	// The real page still works: it has its board and its socket.
	ptab, closePage := chromedp.NewContext(ctx)
	defer closePage()
	con := watchConsole(ptab)
	if err := chromedp.Do(ptab, chromedp.Navigate(url)); err != nil || !waitJS(t, ptab, `!!document.querySelector('#board svg')`, 30*time.Second) {
		t.Fatalf("the page itself shows no board: %v", err)
	}
	con.check(t)
}

// handOf reads the hand a page shows: the names of its hand's cards.
const handOf = `[...document.querySelectorAll('#board g.inhand')].map(e => e.getAttribute('data-card')).sort()`

// TestBrowserTwoSeats: two players on one machine, host and join with
// --web, each with a page in the same browser. The host starts the game
// from its page once the other has joined. Each page shows its own
// seat, its own hand and the other's hand only as a count; once their
// hands differ, neither page shows the other's cards.
func TestBrowserTwoSeats(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	pctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	host := start(t, pctx, "ada", "host", "dominion", "--web", "--loopback", "--json", "--home", filepath.Join(tmp, "a"), "--name", "ada")
	addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
	bob := start(t, pctx, "bob", "join", addr, "--web", "--loopback", "--json", "--home", filepath.Join(tmp, "b"), "--name", "bob")
	urls := []string{host.pageURL(t, 20*time.Second), bob.pageURL(t, 20*time.Second)}
	if urls[0] == urls[1] {
		t.Fatal("the two players got the same page")
	}
	var tabs []context.Context
	var cons []*console
	for _, u := range urls {
		tab, closeTab := chromedp.NewContext(ctx)
		defer closeTab()
		cons = append(cons, watchConsole(tab))
		if err := chromedp.Do(tab, chromedp.Navigate(u)); err != nil || !waitJS(t, tab, `!!window.BM.frame`, 30*time.Second) {
			t.Fatalf("open %s: %v", u, err)
		}
		tabs = append(tabs, tab)
	}
	// In the lobby: the host's page lists who joined and offers Start.
	if !waitJS(t, tabs[0], `!!document.querySelector('#buttons button[data-action="start"]') && BM.frame.lobby && BM.frame.lobby.joined.length >= 2`, 30*time.Second) {
		t.Fatal("the host's page never offered to start with both players in the lobby")
	}
	if n, _ := chromedp.Run(tabs[1], chromedp.Evaluate[int](`document.querySelectorAll('#buttons button[data-action="start"]').length`)); n != 0 {
		t.Fatal("the joiner's page offers to start the game")
	}
	lobby, _ := chromedp.Run(tabs[0], chromedp.Evaluate[string](`document.getElementById('board').innerText`))
	if !strings.Contains(lobby, "bob") || !strings.Contains(lobby, "ada") {
		t.Errorf("the host's lobby does not list both players: %q", lobby)
	}
	screenshot(t, tabs[0], "lobby")
	if err := chromedp.Do(tabs[0], chromedp.Click(chromedp.CSS(`#buttons button[data-action="start"]`))); err != nil {
		t.Fatal(err)
	}
	for _, tab := range tabs {
		if !waitJS(t, tab, `!!document.querySelector('#board svg')`, 60*time.Second) {
			t.Fatal("the game did not start after the host clicked Start")
		}
	}
	seat := func(tab context.Context) int {
		n, err := chromedp.Run(tab, chromedp.Evaluate[int](`BM.frame.you`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if a, b := seat(tabs[0]), seat(tabs[1]); a == b || a < 1 || b < 1 {
		t.Fatalf("the pages show seats %d and %d", a, b)
	}
	differ := false
	for round := 0; round < 40 && !differ; round++ {
		var hands [2][]string
		for i, tab := range tabs {
			h, err := chromedp.Run(tab, chromedp.Evaluate[[]string](handOf))
			if err != nil {
				t.Fatal(err)
			}
			hands[i] = h
		}
		if len(hands[0]) > 0 && len(hands[1]) > 0 && strings.Join(hands[0], ",") != strings.Join(hands[1], ",") {
			differ = true
			for i, tab := range tabs {
				// The page's own model names exactly its hand, and of the
				// other player a count only.
				own, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`BM.frame.view.hand.flatMap(c => Array(c.count).fill(c.card)).sort()`))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(own, ",") != strings.Join(hands[i], ",") {
					t.Errorf("page %d draws the hand %v, its seat holds %v", i+1, hands[i], own)
				}
				other, err := chromedp.Run(tab, chromedp.Evaluate[string](`JSON.stringify(BM.frame.view.players.filter(p => p.seat !== BM.frame.view.seat).map(p => p.hand))`))
				if err != nil || !regexp.MustCompile(`^\[\d+\]$`).MatchString(other) {
					t.Errorf("page %d knows the other hand as %s (%v), want a count", i+1, other, err)
				}
				if strings.Join(hands[1-i], ",") == strings.Join(hands[i], ",") {
					t.Errorf("page %d shows the other's hand", i+1)
				}
			}
			break
		}
		// Whoever is to move clicks once.
		for i, tab := range tabs {
			mine, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`document.body.classList.contains('myturn')`))
			if mine {
				clickOnce(t, tab, round+i, 30*time.Second)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !differ {
		t.Fatal("the two hands never differed in 40 rounds of clicks")
	}
	for _, c := range cons {
		c.check(t)
	}
}

// TestBrowserWatchesToTheEnd: `play --watch --web` seats only bots; the
// page only watches (no choices), follows the game to its end and shows
// the final scores with the winner and their breakdown.
func TestBrowserWatchesToTheEnd(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	pctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p := start(t, pctx, "watch", "play", "dragonslair", "--web", "--watch", "--bots", "3", "--home", t.TempDir(), "--delay", "40ms", "--seed", "web-watch")
	url := p.pageURL(t, 30*time.Second)
	tab, closeTab := chromedp.NewContext(ctx)
	defer closeTab()
	con := watchConsole(tab)
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if !waitJS(t, tab, `!document.getElementById('over').hidden`, 150*time.Second) {
		st, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('status').innerText`))
		t.Fatalf("the page never showed the end of the game; status %q", st)
	}
	rows, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#overtable tr')].map(r => r.innerText)`))
	if err != nil {
		t.Fatal(err)
	}
	winners := 0
	for _, r := range rows[1:] {
		if strings.Contains(r, "winner") {
			winners++
		}
	}
	if len(rows) != 4 || winners == 0 || !strings.Contains(strings.ToLower(rows[0]), "eggs") {
		t.Errorf("the score table is %q; want a header with the breakdown, 3 seats and a winner", rows)
	}
	seat, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('seatno').innerText`))
	n, _ := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('#buttons button').length`))
	if seat != "spectating" || n != 0 {
		t.Errorf("a watcher's page says %q and offers %d buttons", seat, n)
	}
	screenshot(t, tab, "dragonslair-over")
	con.check(t)
}

// TestBrowserSpectator: `spectate --web` shows a game hosted by others on
// a page that follows the verified log: the board as a spectator sees it,
// the players, no choices. At a secret table of Dominion or Infinite
// City (the default) the spectator sees each seat's hand size, and no card
// of any hand.
func TestBrowserSpectator(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	for _, c := range []struct{ game, bots, ready string }{
		{"dragonslair", "cautious random", `!!document.querySelector('#board svg .hall')`},
		{"dominion", "bigmoney smithy", `!!document.querySelector('#board svg') && !!BM.frame.view && BM.frame.view.players.length === 2`},
		{"infinitecity", "greedy random", `!!document.querySelector('#board svg') && !!BM.frame.view && !!BM.frame.view.hand_sizes`},
	} {
		t.Run(c.game, func(t *testing.T) {
			pctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			tmp := t.TempDir()
			bots := strings.Fields(c.bots)
			common := []string{"--loopback", "--json", "--bot-delay", "150ms"}
			host := start(t, pctx, "host", append([]string{"host", c.game, "--home", filepath.Join(tmp, "a"), "--name", "ada", "--bot", bots[0], "--start-when", "2"}, common...)...)
			addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
			bob := start(t, pctx, "bob", append([]string{"join", addr, "--home", filepath.Join(tmp, "b"), "--name", "bob", "--bot", bots[1]}, common...)...)
			dumpOnFailure(t, host, bob)
			bob.waitEvent(t, "started", 30*time.Second)
			spec := start(t, pctx, "spectator", "spectate", addr, "--web", "--home", filepath.Join(tmp, "s"), "--loopback")
			url := spec.pageURL(t, 30*time.Second)
			tab, closeTab := chromedp.NewContext(ctx)
			defer closeTab()
			con := watchConsole(tab)
			if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil || !waitJS(t, tab, c.ready, 60*time.Second) {
				t.Fatalf("the spectator's page shows no board: %v", err)
			}
			players, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('seats').innerText`))
			if !strings.Contains(players, "ada") || !strings.Contains(players, "bob") {
				t.Errorf("the spectator's players are %q", players)
			}
			seat, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('seatno').innerText`))
			n, _ := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('#buttons button, #board [data-action]').length`))
			if seat != "spectating" || n != 0 {
				t.Errorf("the spectator's page says %q and offers %d choices", seat, n)
			}
			switch c.game {
			case "dominion":
				spectatorHands(t, tab)
			case "infinitecity":
				spectatorTiles(t, tab)
			}
			con.check(t)
		})
	}
}

// spectatorHands checks a Dominion spectator's page at a secret table: the
// status says the table is secret; once the hands are dealt, the model
// gives each seat's hand size as a number and names no card of any hand,
// and the players' panel shows the sizes.
func spectatorHands(t *testing.T, tab context.Context) {
	t.Helper()
	if !waitJS(t, tab, `BM.frame.status.includes('secret table') && BM.frame.view.players.every(p => p.hand > 0)`, 60*time.Second) {
		st, _ := chromedp.Run(tab, chromedp.Evaluate[string](`BM.frame.status + ' | ' + JSON.stringify(BM.frame.view.players)`))
		t.Fatalf("the spectator never saw both hands dealt at a secret table: %s", st)
	}
	var got struct {
		Sizes  []int    `json:"sizes"`
		Hand   bool     `json:"hand"`
		Panel  []string `json:"panel"`
		Player string   `json:"player"`
	}
	b, err := chromedp.Run(tab, chromedp.Evaluate[string](`JSON.stringify({
		sizes: BM.frame.view.players.map(p => p.hand),
		hand: 'hand' in BM.frame.view,
		panel: [...document.querySelectorAll('#seats .seat .detail')].map(e => e.innerText),
		player: JSON.stringify(BM.frame.view.players),
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got.Hand {
		t.Errorf("the spectator's model has a hand of its own: %s", got.Player)
	}
	if len(got.Sizes) != 2 || len(got.Panel) != 2 {
		t.Fatalf("the spectator sees hand sizes %v and the panel %q", got.Sizes, got.Panel)
	}
	for i, size := range got.Sizes {
		if size < 1 || size > 20 || !strings.Contains(got.Panel[i], fmt.Sprintf("hand %d ·", size)) {
			t.Errorf("seat %d: hand size %d, the panel says %q", i+1, size, got.Panel[i])
		}
	}
	// What a player's hand holds appears nowhere in the seat records: the
	// only card names there are the ones the rules make public (known_top).
	if regexp.MustCompile(`"hand":\[`).MatchString(got.Player) {
		t.Errorf("the spectator's model lists cards of a hand: %s", got.Player)
	}
}

// spectatorTiles is spectatorHands for Infinite City: the model gives
// each seat's hand size and no tile of any hand (nor a Library's peek),
// no face-down tile of the table is named, and the board says "N in hand"
// for each seat, as the model has it.
func spectatorTiles(t *testing.T, tab context.Context) {
	t.Helper()
	if !waitJS(t, tab, `BM.frame.status.includes('secret table') && BM.frame.view.hand_sizes.length === 2 && BM.frame.view.hand_sizes.every(n => n > 0)`, 60*time.Second) {
		st, _ := chromedp.Run(tab, chromedp.Evaluate[string](`BM.frame.status + ' | ' + JSON.stringify(BM.frame.view.hand_sizes)`))
		t.Fatalf("the spectator never saw both hands dealt at a secret table: %s", st)
	}
	var got struct {
		Sizes    []int    `json:"sizes"`
		Hand     bool     `json:"hand"`
		Peek     bool     `json:"peek"`
		Named    int      `json:"named"`
		Board    []string `json:"board"`
		FaceDown int      `json:"face_down"`
	}
	// One evaluation, so that the model and the board are of one frame.
	b, err := chromedp.Run(tab, chromedp.Evaluate[string](`JSON.stringify({
		sizes: BM.frame.view.hand_sizes,
		hand: 'hand' in BM.frame.view,
		peek: 'peek' in BM.frame.view,
		face_down: BM.frame.view.tiles.filter(x => x.face_down).length,
		named: BM.frame.view.tiles.filter(x => x.face_down && x.name).length,
		board: [...document.querySelectorAll('#board svg text')].map(e => e.textContent).filter(s => s.includes(' in hand')),
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got.Hand || got.Peek || got.Named > 0 {
		t.Errorf("the spectator's model shows hidden tiles (a hand: %v, a peek: %v, %d of %d face-down tiles named): %s", got.Hand, got.Peek, got.Named, got.FaceDown, b)
	}
	if len(got.Sizes) != 2 || len(got.Board) != 2 {
		t.Fatalf("the spectator sees hand sizes %v and the board says %q", got.Sizes, got.Board)
	}
	for i, size := range got.Sizes {
		if size < 1 || size > 20 || !strings.HasSuffix(got.Board[i], fmt.Sprintf("· %d in hand", size)) {
			t.Errorf("seat %d: hand size %d, the board says %q", i+1, size, got.Board[i])
		}
	}
}

// TestBrowserDropsAbsentPlayer: of three players one vanishes (SIGKILL);
// the page shows how long the table has waited for them and, after
// --drop-after, offers the vote to drop them; two clicks vote (with the
// third player's, a majority), and the game goes on without them.
func TestBrowserDropsAbsentPlayer(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	pctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	// A secret table (the default): bob's card key is rebuilt from the
	// others' escrow pieces, and a shuffle chain that waited for his link
	// goes on without it (lockstep/deal).
	host := start(t, pctx, "ada", "host", "dominion", "--web", "--loopback", "--json", "--start-when", "3", "--drop-after", "2s", "--home", filepath.Join(tmp, "a"), "--name", "ada")
	addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
	bob := start(t, pctx, "bob", "join", addr, "--loopback", "--json", "--bot", "random", "--home", filepath.Join(tmp, "b"), "--name", "bob")
	start(t, pctx, "cy", "join", addr, "--loopback", "--json", "--bot", "random", "--drop-after", "2s", "--home", filepath.Join(tmp, "c"), "--name", "cy")
	bob.waitEvent(t, "started", 30*time.Second)
	url := host.pageURL(t, 20*time.Second)
	tab, closeTab := chromedp.NewContext(ctx)
	defer closeTab()
	con := watchConsole(tab)
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil || !waitJS(t, tab, `!!document.querySelector('#board svg')`, 30*time.Second) {
		t.Fatalf("open %s: %v", url, err)
	}
	if !waitJS(t, tab, `document.getElementById('status').innerText.includes('secret table')`, 20*time.Second) {
		st, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('status').innerText`))
		t.Fatalf("the page does not say the table is secret: %q", st)
	}
	// Bob leaves after his first move.
	deadline := time.Now().Add(60 * time.Second)
	for n := 0; ; n++ {
		if moved, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`document.getElementById('history').innerText.includes('bob (seat')`)); moved {
			break
		}
		if time.Now().After(deadline) {
			h, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('history').innerText`))
			t.Fatalf("bob never moved; history:\n%s", h)
		}
		if mine, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`document.body.classList.contains('myturn')`)); mine {
			clickOnce(t, tab, n, 10*time.Second)
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := bob.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-bob.done
	// Play our turns until the table waits for bob and offers the drop.
	deadline = time.Now().Add(60 * time.Second)
	for n := 100; ; n++ {
		if ok, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`!!document.querySelector('#buttons button[data-action="drop-ask"]')`)); ok {
			break
		}
		if time.Now().After(deadline) {
			st, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('status').innerText + ' | ' + document.getElementById('seats').innerText`))
			t.Fatalf("the page never offered to drop bob; it shows %q", st)
		}
		if mine, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`document.body.classList.contains('myturn') && !document.querySelector('[data-action="drop-ask"]')`)); mine {
			clickOnce(t, tab, n, 10*time.Second)
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
	stall, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('seats').innerText`))
	if !regexp.MustCompile(`the table waits for .*: \d+ s`).MatchString(stall) {
		t.Errorf("the players show no wait timer for bob: %q", stall)
	}
	for _, sel := range []string{`#buttons button[data-action="drop-ask"]`, `#buttons button[data-action="drop"]`} {
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
	if !waitJS(t, tab, `BM.frame.seats.some(s => s.name === 'bob' && s.dropped)`, 30*time.Second) {
		h, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('history').innerText`))
		t.Fatalf("bob was not dropped after the vote; history:\n%s", h)
	}
	if !waitJS(t, tab, `document.body.classList.contains('myturn')`, 30*time.Second) {
		h, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('status').innerText + '\n' + document.getElementById('history').innerText`))
		t.Fatalf("the game did not go on after the drop; the page shows:\n%s", h)
	}
	con.check(t)
}

// TestBrowserClaimsTheWin: at a secret table of two (the default), the
// other player vanishes (SIGKILL). A table of two cannot vote anyone out,
// so the page says in plain words that the game is paused and why, first
// without a claim (before --drop-after, saying when) and then with a Claim
// button;
// Claim asks again, Yes claims, and the page shows the game over with
// this player as the winner by the claim.
func TestBrowserClaimsTheWin(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	pctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	host := start(t, pctx, "ada", "host", "dominion", "--web", "--loopback", "--json", "--start-when", "2", "--drop-after", "12s", "--home", filepath.Join(tmp, "a"), "--name", "ada")
	addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
	bob := start(t, pctx, "bob", "join", addr, "--loopback", "--json", "--bot", "random", "--home", filepath.Join(tmp, "b"), "--name", "bob")
	dumpOnFailure(t, host, bob)
	if text, _ := bob.waitEvent(t, "started", 30*time.Second)["text"].(string); !strings.Contains(text, "secret table") {
		t.Fatalf("bob's start line does not say the table is secret: %q", text)
	}
	url := host.pageURL(t, 20*time.Second)
	tab, closeTab := chromedp.NewContext(ctx)
	defer closeTab()
	con := watchConsole(tab)
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil || !waitJS(t, tab, `!!document.querySelector('#board svg')`, 30*time.Second) {
		t.Fatalf("open %s: %v", url, err)
	}
	if err := bob.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-bob.done
	// Play our turns until the page says the game is paused.
	deadline := time.Now().Add(60 * time.Second)
	for n := 0; ; n++ {
		if ok, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`document.getElementById('prompt').classList.contains('pause')`)); ok {
			break
		}
		if time.Now().After(deadline) {
			st, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('status').innerText + ' | ' + document.getElementById('seats').innerText`))
			t.Fatalf("the page never said the game is paused; it shows %q", st)
		}
		if mine, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`document.body.classList.contains('myturn')`)); mine {
			clickOnce(t, tab, n, 10*time.Second)
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
	prompt, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('prompt').innerText`))
	claims, _ := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-action^="claim"]').length`))
	if !strings.Contains(prompt, "Paused: bob is away and the game cannot go on without them") || !strings.Contains(prompt, "both players' keys") {
		t.Errorf("the pause reads %q", prompt)
	}
	// The pause comes after the stall time (5 s), the claim after
	// --drop-after.
	if !strings.Contains(prompt, "a claim of the win is possible after 12 s") || claims != 0 {
		t.Errorf("before the drop time the pause reads %q, with %d claim buttons", prompt, claims)
	}
	if seats, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('seats').innerText`)); !strings.Contains(seats, "too few players left to vote them out") {
		t.Errorf("the players do not say bob cannot be voted out: %q", seats)
	}
	if !waitJS(t, tab, `!!document.querySelector('#buttons button[data-action="claim-ask"]')`, 30*time.Second) {
		st, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('prompt').innerText + ' | ' + document.getElementById('status').innerText`))
		t.Fatalf("the page never offered the claim; it shows %q", st)
	}
	screenshot(t, tab, "claim")
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`#buttons button[data-action="claim-ask"]`))); err != nil {
		t.Fatal(err)
	}
	// The first click only asks: cancel, then ask again and confirm.
	if !waitJS(t, tab, `!!document.querySelector('#buttons button[data-action="claim"]') && !!document.querySelector('#buttons button[data-action="claim-cancel"]') && document.getElementById('prompt').innerText.includes('Claim the win?') && document.getElementById('over').hidden`, 10*time.Second) {
		t.Fatal("the Claim button did not ask for a confirmation")
	}
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`#buttons button[data-action="claim-cancel"]`))); err != nil {
		t.Fatal(err)
	}
	if !waitJS(t, tab, `!!document.querySelector('#buttons button[data-action="claim-ask"]') && !document.querySelector('#buttons button[data-action="claim"]')`, 10*time.Second) {
		t.Fatal("No did not take the confirmation back")
	}
	for _, sel := range []string{`#buttons button[data-action="claim-ask"]`, `#buttons button[data-action="claim"]`} {
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
	if !waitJS(t, tab, `!document.getElementById('over').hidden`, 30*time.Second) {
		st, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('status').innerText + ' | toast ' + document.getElementById('toast').innerText`))
		t.Fatalf("the game did not end after the claim; the page shows %q", st)
	}
	title, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('overtitle').innerText`))
	reason, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('overreason').innerText`))
	if title != "You won!" || !strings.Contains(reason, "bob left the table; ada claimed the win") {
		t.Errorf("the game over says %q: %q", title, reason)
	}
	sum := host.waitEvent(t, "summary", 30*time.Second)
	if r, _ := sum["reason"].(string); !strings.Contains(r, "ada claimed the win") {
		t.Errorf("the host's summary: %v", sum)
	}
	con.check(t)
}

// TestBrowserHeldAfterRestart: at a secret table of two, bob vanishes
// while the cards wait for him; then ada's boardmesh is killed too and
// resumed. Her card layer is held until every other seat has answered
// her catch-up, and her page says so under bob's seat in plain words;
// the table of two is paused, and after --drop-after she may still claim
// the win from the resumed page.
func TestBrowserHeldAfterRestart(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	pctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	home := filepath.Join(tmp, "a")
	host := start(t, pctx, "ada", "host", "dominion", "--web", "--loopback", "--json", "--start-when", "2", "--drop-after", "6s", "--home", home, "--name", "ada")
	addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
	bob := start(t, pctx, "bob", "join", addr, "--loopback", "--json", "--bot", "random", "--home", filepath.Join(tmp, "b"), "--name", "bob")
	dumpOnFailure(t, host, bob)
	bob.waitEvent(t, "started", 30*time.Second)
	tab, closeTab := chromedp.NewContext(ctx)
	defer closeTab()
	if url := host.pageURL(t, 20*time.Second); chromedp.Do(tab, chromedp.Navigate(url)) != nil || !waitJS(t, tab, `!!document.querySelector('#board svg')`, 30*time.Second) {
		t.Fatal("ada's page shows no board")
	}
	if err := bob.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-bob.done
	// Ada plays her turns until the table waits for bob's part of the
	// cards (a draw needs his decryption shares).
	deadline := time.Now().Add(60 * time.Second)
	for n := 0; ; n++ {
		if ok, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`BM.frame.stalls && BM.frame.stalls.some(s => s.name === 'bob' && s.what.startsWith('its ') && s.for_ms >= 1000)`)); ok {
			break
		}
		if time.Now().After(deadline) {
			st, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('status').innerText`))
			t.Fatalf("the table never waited for bob's part of the cards; it shows %q", st)
		}
		if mine, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`document.body.classList.contains('myturn')`)); mine {
			clickOnce(t, tab, n, 10*time.Second)
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := host.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-host.done
	ada := start(t, pctx, "ada resumed", "resume", "--home", home, "--web", "--loopback", "--json", "--drop-after", "6s")
	dumpOnFailure(t, ada)
	tab2, closeTab2 := chromedp.NewContext(ctx)
	defer closeTab2()
	con := watchConsole(tab2)
	if url := ada.pageURL(t, 30*time.Second); chromedp.Do(tab2, chromedp.Navigate(url)) != nil || !waitJS(t, tab2, `!!document.querySelector('#board svg')`, 30*time.Second) {
		t.Fatal("ada's resumed page shows no board")
	}
	// The resumed page tells the game from the log: ada's moves before
	// the restart are in its history.
	if !waitJS(t, tab2, `document.getElementById('history').innerText.includes('ada (seat')`, 10*time.Second) {
		h, _ := chromedp.Run(tab2, chromedp.Evaluate[string](`document.getElementById('history').innerText + '\n' + JSON.stringify(BM.frame.history)`))
		t.Errorf("the resumed page's history lacks the moves before the restart:\n%s", h)
	}
	held := regexp.MustCompile(`held: waiting for bob \(seat \d\) to answer the card catch-up after restart`)
	if !waitJS(t, tab2, `!!document.querySelector('#seats .stall.why')`, 30*time.Second) {
		st, _ := chromedp.Run(tab2, chromedp.Evaluate[string](`document.getElementById('status').innerText + ' | ' + document.getElementById('seats').innerText + ' | ' + JSON.stringify(BM.frame.stalls)`))
		t.Fatalf("the resumed page never said why it waits; it shows %q", st)
	}
	why, _ := chromedp.Run(tab2, chromedp.Evaluate[string](`document.querySelector('#seats .stall.why').innerText`))
	if !held.MatchString(why) {
		t.Errorf("under bob's seat the page says %q", why)
	}
	if !waitJS(t, tab2, `!!document.querySelector('#buttons button[data-action="claim-ask"]')`, 30*time.Second) {
		st, _ := chromedp.Run(tab2, chromedp.Evaluate[string](`document.getElementById('prompt').innerText + ' | ' + document.getElementById('status').innerText`))
		t.Fatalf("the resumed page never offered the claim; it shows %q", st)
	}
	screenshot(t, tab2, "held-after-restart")
	for _, sel := range []string{`#buttons button[data-action="claim-ask"]`, `#buttons button[data-action="claim"]`} {
		if err := chromedp.Do(tab2, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
	if !waitJS(t, tab2, `!document.getElementById('over').hidden && document.getElementById('overtitle').innerText === 'You won!'`, 30*time.Second) {
		st, _ := chromedp.Run(tab2, chromedp.Evaluate[string](`document.getElementById('status').innerText + ' | toast ' + document.getElementById('toast').innerText`))
		t.Fatalf("the claim after the restart did not end the game; the page shows %q", st)
	}
	con.check(t)
}
