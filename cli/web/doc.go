// Package web serves one seat's view of a table to a browser on this
// machine: `boardmesh play --web` (and --web on host, join, spectate and
// resume) starts a Server on 127.0.0.1, prints its URL and opens it.
//
// The page (assets/, embedded, plain JavaScript, no network at run time)
// draws the game as SVG and turns every legal action into a click. The
// protocol is one WebSocket: the server pushes a frame (the table as JSON:
// seats, status, history, peers, sync line, the legal actions with ids,
// and the seat's engine view as "board") after every change, and the page
// sends back {"action": ID}. The server only carries frames and action ids;
// what a frame holds and what an id does is decided by the caller (package
// cli), so every front end shows the same table.
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
