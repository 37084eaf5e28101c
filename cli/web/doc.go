// Package web serves one seat's view of a table to a browser on this
// machine: `boardmesh play --web` (and --web on host, join, spectate and
// resume) starts a Server on 127.0.0.1, prints its URL and opens it.
//
// The page (assets/, embedded, plain JavaScript, no network at run time)
// draws the game as SVG (one game-*.js per game, from the engine's view)
// and turns every legal action into a click. The protocol is one
// WebSocket:
//   - the server pushes {"type": "frame", "frame": F} after every change,
//     where F is the presentation model of the table (cli/present.Table:
//     seats, status, history, actions with ids, scores, peers, stalls,
//     votes, sync, cheats, lobby, the engine's view) plus Hints, which say
//     where on each game's drawing an action is clicked;
//   - the page sends {"action": ID, "step": S}: an action id of the frame
//     of step S, or "start" (the host's lobby) or "drop" (a drop vote);
//   - the server answers what it refuses with {"type": "error", "text": T}.
//
// Server is the transport and its checks; Page maps what a page sends to
// the seat's moves (Controls), once per decision, and plays a combo's
// steps in turn, as the terminal UI does.
//
// Safe by construction, because any web page the user visits runs in the
// same browser and can reach 127.0.0.1:
//   - it listens on 127.0.0.1 only;
//   - every URL carries a random per-session token as its first path
//     segment; a request or socket without it gets 403;
//   - the Host header must be exactly 127.0.0.1:PORT (a DNS-rebinding page
//     sends its own host name), else 403;
//   - a WebSocket upgrade must come with Origin exactly
//     http://127.0.0.1:PORT, else 403 (no other page can drive the seat);
//   - no CORS headers, a strict Content-Security-Policy, no framing.
package web
