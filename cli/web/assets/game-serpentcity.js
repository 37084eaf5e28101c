// game-serpentcity.js: Serpent City as a ring road of spaces around the
// Capital, START at the top, the territories outside the ring beside the
// road space that touches them. Pawns and buildings are in the seats'
// colours. A road space a pawn can move from, START and a territory to
// occupy, leave, promote from or build on glow.
"use strict";
(function () {
  // The engine's resource and Influence Point source names, in its order
  // (engine/serpentcity: resNames, srcNames).
  var res = ["Coin", "Weapon", "Document", "Fuel", "Diamond"];
  var resColor = { Coin: "#e8c14a", Weapon: "#c8574a", Document: "#7fa7d8", Fuel: "#d88a3a", Diamond: "#6fd0d8" };
  var srcNames = ["dominance", "capital", "building sets", "bought", "cards"];
  var from = null; // the road space (-1: START) whose pawn the player is moving

  // moves lists the pawn moves on the road: from a space to a space, one
  // space on (a "road" hint) or a walk of several ("walk").
  function moves(ctx, N) {
    var dest = function (k) { return k < 0 ? 0 : (k + 1) % N; };
    var out = [];
    ctx.all("road").forEach(function (a) { out.push({ from: a.where.space, to: dest(a.where.space), act: a }); });
    ctx.all("walk").forEach(function (a) { out.push({ from: a.where.space, to: dest(a.where.x), act: a }); });
    return out;
  }

  function pawns(g, x, y, counts, r) {
    var list = [];
    (counts || []).forEach(function (c, s) { for (var i = 0; i < c; i++) list.push(s); });
    var per = Math.min(list.length, 4), cols = per;
    list.forEach(function (s, i) {
      var row = Math.floor(i / 4), col = i % 4;
      var n = Math.min(4, list.length - row * 4);
      g.appendChild(BM.pawn(x + (col - (n - 1) / 2) * r * 2.3, y + row * r * 2.3, r, s));
    });
    return cols;
  }

  function draw(ctx) {
    var b = ctx.board, f = ctx.frame, W = 1200, H = 840, cx = 600, cy = 410;
    var svg = BM.svg(W, H, "serpentcity");
    svg.appendChild(BM.s("rect", { x: 0, y: 0, width: W, height: H, fill: "#3a4a36" }));
    // city blocks texture
    for (var i = 0; i < 60; i++) {
      var bx = (i * 197) % W, by = (i * 131) % H;
      svg.appendChild(BM.s("rect", { x: bx, y: by, width: 40 + (i % 5) * 8, height: 30 + (i % 3) * 10, rx: 4, fill: "rgba(255,255,255,.03)" }));
    }
    var road = b.road || [], N = road.length, RX = 380, RY = 255;
    var pos = function (k, fx, fy) { // k = -1 for START, 0.. for road spaces
      var a = -Math.PI / 2 + (k + 1) * 2 * Math.PI / (N + 1);
      return [cx + Math.cos(a) * RX * (fx || 1), cy + Math.sin(a) * RY * (fy || fx || 1)];
    };
    // the road
    svg.appendChild(BM.s("ellipse", { cx: cx, cy: cy, rx: RX, ry: RY, fill: "none", stroke: "#5b5b60", "stroke-width": 70 }));
    svg.appendChild(BM.s("ellipse", { cx: cx, cy: cy, rx: RX, ry: RY, fill: "none", stroke: "#e8e2c8", "stroke-width": 2, "stroke-dasharray": "14 12" }));
    // territories and their links
    (b.territories || []).forEach(function (t, ti) {
      var p = pos(t.road - 1, 1.34, 1.42), q = pos(t.road - 1);
      svg.appendChild(BM.s("line", { x1: q[0], y1: q[1], x2: p[0], y2: p[1], stroke: "#8a8470", "stroke-width": 8, "stroke-linecap": "round" }));
      var w = 158, h = 74;
      var g = BM.s("g", { class: "territory", transform: "translate(" + (p[0] - w / 2) + "," + (p[1] - h / 2) + ")", "data-territory": ti });
      g.appendChild(BM.s("rect", { x: 3, y: 5, width: w, height: h, rx: 10, fill: "rgba(0,0,0,.3)" }));
      g.appendChild(BM.s("rect", { x: 0, y: 0, width: w, height: h, rx: 10, fill: "#f3ecd6", stroke: resColor[t.resource] || "#999", "stroke-width": 4 }));
      g.appendChild(BM.s("rect", { x: 4, y: 4, width: w - 8, height: 20, rx: 6, fill: resColor[t.resource] || "#999" }));
      g.appendChild(BM.text(w / 2, 19, t.name, { "font-size": t.name.length > 16 ? 11.5 : 13, "font-weight": "bold", "text-anchor": "middle", fill: "#1e1e1e" }));
      g.appendChild(BM.text(8, 40, t.resource + (t.dominance ? " · " + t.dominance : ""), { "font-size": 11, fill: "#333" }));
      (t.buildings || []).forEach(function (o, k) {
        var x = 10 + k * 20, y = 48;
        g.appendChild(BM.s("path", { d: "M" + x + " " + (y + 18) + " v-10 l8 -7 l8 7 v10 z", fill: BM.seatColor(o), stroke: "#222", "stroke-width": 1 }, BM.title("a building of " + BM.seatName(f, o))));
      });
      for (var k = 0; k < t.free_slots && k < 6; k++) {
        var x = 10 + ((t.buildings || []).length + k) * 20;
        if (x > w - 60) break;
        g.appendChild(BM.s("rect", { x: x + 1, y: 50, width: 14, height: 14, rx: 2, fill: "none", stroke: "#aaa", "stroke-dasharray": "2 2" }));
      }
      pawns(g, w - 34, 52, t.pawns, 7);
      g.appendChild(BM.s("rect", { class: "hl", x: -3, y: -3, width: w + 6, height: h + 6, rx: 12, fill: "none", stroke: "none" }));
      g.appendChild(BM.title(t.name + ": gives " + t.resource + "; touches road space " + t.road + (t.dominance ? "; dominance " + t.dominance : "") + "; " + t.free_slots + " free building slots"));
      var a = ctx.use(ctx.find("territory", function (tg) { return tg.space === ti; }));
      svg.appendChild(BM.clickable(g, a, ctx));
    });
    // road spaces: click a pawn's space to pick it, then where it goes
    var ms = moves(ctx, N), origins = {};
    ms.forEach(function (m) { origins[m.from] = true; ctx.use(m.act); });
    if (from === null || !origins[from]) {
      from = null;
      ms.forEach(function (m) { if (from === null || (from === -1 && m.from >= 0)) from = m.from; });
    }
    var space = function (k, counts, label) {
      var p = pos(k), S = 58;
      var g = BM.s("g", { class: "space" + (k === from && origins[k] ? " sel" : ""), transform: "translate(" + (p[0] - S / 2) + "," + (p[1] - S / 2) + ")", "data-space": k });
      g.appendChild(BM.s("rect", { x: 0, y: 0, width: S, height: S, rx: 10, fill: k < 0 ? "#f0c94a" : "#d9d4c0", stroke: "#333", "stroke-width": 2 }));
      g.appendChild(BM.text(S / 2, 15, label, { "font-size": 12, "font-weight": "bold", "text-anchor": "middle", fill: "#333" }));
      pawns(g, S / 2, 32, counts, 7);
      g.appendChild(BM.s("rect", { class: "hl", x: -3, y: -3, width: S + 6, height: S + 6, rx: 12, fill: "none", stroke: "none" }));
      var go = null;
      ms.forEach(function (m) { if (m.from === from && m.to === k && (!go || m.act.where.kind === "road")) go = m.act; });
      if (go) {
        g.appendChild(BM.s("circle", { cx: S - 8, cy: S - 8, r: 7, fill: "#ffd166", stroke: "#333" }));
        svg.appendChild(BM.clickable(g, go, ctx));
      } else if (origins[k] && k !== from) {
        g.classList.add("can", "origin");
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", "move a pawn from " + label);
        g.appendChild(BM.title("move a pawn from " + label));
        g.addEventListener("click", function () { from = k; BM.rerender(); });
        svg.appendChild(g);
      } else {
        svg.appendChild(g);
      }
    };
    space(-1, b.start, "START");
    road.forEach(function (c, k) { space(k, c, String(k + 1)); });
    // the Capital
    svg.appendChild(BM.s("circle", { cx: cx, cy: cy, r: 150, fill: "#4d5d48", stroke: "#c9b77a", "stroke-width": 6 }));
    var wall = "";
    for (var j = 0; j < 8; j++) { var an = j * Math.PI / 4; wall += (j ? "L" : "M") + (cx + Math.cos(an) * 120) + " " + (cy - 30 + Math.sin(an) * 62); }
    svg.appendChild(BM.s("path", { d: wall + "Z", fill: "#e9dfbf", stroke: "#8a7a4a", "stroke-width": 3 }));
    svg.appendChild(BM.text(cx, cy - 60, "THE CAPITAL", { "font-size": 16, "font-weight": "bold", "text-anchor": "middle", fill: "#3a3220", "letter-spacing": 2 }));
    var cap = BM.s("g");
    pawns(cap, cx, cy - 32, b.capital, 10);
    svg.appendChild(cap);
    var used = 0;
    (b.capital || []).forEach(function (n) { used += n; });
    svg.appendChild(BM.text(cx, cy + 8, used + " of " + b.capital_slots + " places taken", { "font-size": 11, "text-anchor": "middle", fill: "#3a3220" }));
    // dice and round
    var dice = b.dice || [0, 0];
    dice.forEach(function (d, k) {
      var x = cx - 48 + k * 56, y = cy + 38;
      svg.appendChild(BM.s("rect", { x: x, y: y, width: 40, height: 40, rx: 8, fill: "#fff", stroke: "#222", "stroke-width": 2 }));
      var pips = { 1: [[20, 20]], 2: [[10, 10], [30, 30]], 3: [[10, 10], [20, 20], [30, 30]], 4: [[10, 10], [30, 10], [10, 30], [30, 30]], 5: [[10, 10], [30, 10], [20, 20], [10, 30], [30, 30]], 6: [[10, 10], [30, 10], [10, 20], [30, 20], [10, 30], [30, 30]] }[d] || [];
      pips.forEach(function (p) { svg.appendChild(BM.s("circle", { cx: x + p[0], cy: y + p[1], r: 3.6, fill: "#222" })); });
    });
    svg.appendChild(BM.text(cx, cy + 100, "Round " + b.round + " of " + b.rounds + " · " + b.movement_points + " MP left", { "font-size": 13, "text-anchor": "middle", fill: "#f3ecd6" }));
    svg.appendChild(BM.text(cx, cy + 118, "first to " + b.win_ip + " IP wins", { "font-size": 11, "text-anchor": "middle", fill: "#cfd8c0" }));
    // the news line
    var news = [b.conflict, b.last_fight, b.last_draw].filter(function (x) { return x; });
    news.forEach(function (n, k) {
      svg.appendChild(BM.text(20, H - 20 - k * 20, n, { "font-size": 13, fill: "#f3ecd6" }));
    });
    // my resources
    var me = null;
    (b.players || []).forEach(function (p) { if (p.seat === ctx.seat) me = p; });
    if (me) {
      var x0 = W - 330, y0 = H - 104;
      svg.appendChild(BM.s("rect", { x: x0, y: y0, width: 316, height: 92, rx: 12, fill: "rgba(0,0,0,.35)", stroke: BM.seatColor(me.seat), "stroke-width": 2 }));
      svg.appendChild(BM.text(x0 + 12, y0 + 20, "YOUR RESOURCES", { "font-size": 12, "font-weight": "bold", fill: "#fff", "letter-spacing": 1.5 }));
      res.forEach(function (r, k) {
        var x = x0 + 14 + k * 60;
        svg.appendChild(BM.s("circle", { cx: x + 12, cy: y0 + 44, r: 12, fill: resColor[r], stroke: "#fff" }, BM.title(r)));
        svg.appendChild(BM.text(x + 30, y0 + 49, me.resources[k], { "font-size": 16, "font-weight": "bold", fill: "#fff" }));
      });
      var cards = (me.cards || []).map(function (c) { return c.name + (c.count > 1 ? " ×" + c.count : ""); }).join(", ");
      svg.appendChild(BM.lines(x0 + 12, y0 + 74, "Cards: " + (cards || "none"), 48, 14, { "font-size": 11, fill: "#e0e0e0" }, 2));
    }
    return svg;
  }

  BM.games.serpentcity = {
    draw: draw,
    turn: function (b) { return b.current; },
    prompt: function (ctx) {
      var a = ctx.board.asking || "";
      if (from !== null && ctx.frame.your_turn) a += " — moving a pawn from " + (from < 0 ? "START" : "road space " + (from + 1)) + " (click another pawn's space to move that one)";
      return a;
    },
    seats: function (ctx) {
      return (ctx.board.players || []).map(function (p) {
        var src = (p.ip_sources || []).map(function (n, k) { return n ? n + " " + srcNames[k] : ""; }).filter(function (x) { return x; }).join(", ");
        return {
          seat: p.seat, score: p.ip, unit: "IP", left: p.left,
          detail: res.map(function (r, k) { return p.resources[k] + " " + r; }).join(" · ") + " · pawns " + p.active_pawns + "/" + p.pawn_limit + " · cards " + p.economic_cards + "E " + p.military_cards + "M",
          tip: src ? "Influence from " + src : "",
        };
      });
    },
    breakdown: function (ctx) {
      return { head: srcNames, rows: (ctx.board.players || []).map(function (p) { return p.ip_sources || []; }) };
    },
  };
})();
