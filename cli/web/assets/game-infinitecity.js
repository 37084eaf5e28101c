// game-infinitecity.js: Infinite City as a growing city of square tiles.
// Each tile shows its name, its abbreviation and the control markers on
// it in the seats' colours; a protected tile carries a shield. The empty
// squares where the chosen tile may be laid glow; the hand is a row of
// tiles below (click one to choose it, then click a square).
"use strict";
(function () {
  var chosen = null; // the name of the hand tile the player has picked

  function key(b) {
    // Views marshal camelCase in this game; accept snake_case too.
    return function (o, k) { return o[k] !== undefined ? o[k] : o[k.replace(/[A-Z]/g, function (c) { return "_" + c.toLowerCase(); })]; };
  }

  function tile(t, S, get, opts) {
    opts = opts || {};
    var fd = get(t, "faceDown"), g = BM.s("g", { class: "tile" + (fd ? " facedown" : ""), "data-x": t.x, "data-y": t.y });
    var fill = fd ? "#2b3550" : BM.hue(t.name || "", 42, 72);
    g.appendChild(BM.s("rect", { x: 3, y: 5, width: S - 4, height: S - 4, rx: 8, fill: "rgba(0,0,0,.35)" }));
    g.appendChild(BM.s("rect", { x: 1, y: 1, width: S - 4, height: S - 4, rx: 8, fill: fill, stroke: opts.last ? "#ffd166" : "#1c2230", "stroke-width": opts.last ? 4 : 2 }));
    if (fd) {
      for (var i = 1; i < 4; i++) g.appendChild(BM.s("path", { d: "M" + (S * i / 4) + " 6 L" + 6 + " " + (S * i / 4), stroke: "#3c4870", "stroke-width": 3 }));
      g.appendChild(BM.text(S / 2 - 1, S / 2 + 10, "?", { "font-size": S * 0.4, fill: "#8a97c0", "text-anchor": "middle", "font-weight": "bold" }));
    } else {
      var big = S >= 64;
      g.appendChild(BM.s("rect", { x: 5, y: 5, width: S - 12, height: S * (big ? 0.34 : 0.42), rx: 5, fill: "rgba(255,255,255,.55)" }));
      g.appendChild(BM.text(S / 2 - 1, 5 + S * (big ? 0.26 : 0.32), t.abbr || "", { "font-size": S * (big ? 0.24 : 0.3), "text-anchor": "middle", "font-weight": "bold", fill: "#1c2230" }));
      if (big) g.appendChild(BM.lines(S / 2 - 1, S * 0.56, t.name || "", Math.floor(S / 8), S * 0.14, { "font-size": S * 0.13, "text-anchor": "middle", fill: "#1c2230" }, 2));
      g.appendChild(BM.title((t.name || "") + (get(t, "protected") ? " (protected)" : "")));
    }
    if (get(t, "protected")) {
      var k = S / 80, sx = S - 12 * k - 2, sy = S - 26 * k;
      g.appendChild(BM.s("path", { d: "M" + sx + " " + sy + " l" + 8 * k + " " + 3 * k + " v" + 6 * k + " c0 " + 6 * k + " " + (-4 * k) + " " + 9 * k + " " + (-8 * k) + " " + 11 * k + " c" + (-4 * k) + " " + (-2 * k) + " " + (-8 * k) + " " + (-5 * k) + " " + (-8 * k) + " " + (-11 * k) + " v" + (-6 * k) + " z", fill: "#dfe6f0", stroke: "#334", "stroke-width": 1.2 }, BM.title("protected: its markers cannot be moved or removed")));
    }
    var ms = t.markers || [], n = 0;
    ms.forEach(function (c, seat) {
      for (var i = 0; i < c; i++) {
        g.appendChild(BM.pawn(S * 0.15 + n * S * 0.19, S * 0.8, S * 0.08, seat));
        n++;
      }
    });
    g.appendChild(BM.s("rect", { class: "hl", x: -1, y: -1, width: S, height: S, rx: 9, fill: "none", stroke: "none" }));
    return g;
  }

  function handTile(info, S, chosenNow, count) {
    var g = BM.s("g", { class: "handtile" + (chosenNow ? " sel" : ""), "data-tile": info.name });
    g.appendChild(BM.s("rect", { x: 3, y: 6, width: S, height: S * 1.25, rx: 10, fill: "rgba(0,0,0,.35)" }));
    g.appendChild(BM.s("rect", { x: 0, y: 0, width: S, height: S * 1.25, rx: 10, fill: BM.hue(info.name, 42, 72), stroke: "#1c2230", "stroke-width": 2 }));
    g.appendChild(BM.s("rect", { x: 6, y: 6, width: S - 12, height: S * 0.3, rx: 6, fill: "rgba(255,255,255,.6)" }));
    g.appendChild(BM.text(S / 2, 6 + S * 0.22, info.abbr, { "font-size": S * 0.2, "font-weight": "bold", "text-anchor": "middle", fill: "#1c2230" }));
    g.appendChild(BM.text(S / 2, S * 0.48, info.name, { "font-size": S * 0.11, "font-weight": "bold", "text-anchor": "middle", fill: "#1c2230" }));
    g.appendChild(BM.lines(S / 2, S * 0.64, info.text || "", Math.floor(S / 6.2), S * 0.105, { "font-size": S * 0.095, "text-anchor": "middle", fill: "#1c2230" }, 5));
    if (info.bonus) g.appendChild(BM.text(S - 10, S * 1.2, "+" + info.bonus, { "font-size": S * 0.13, "text-anchor": "end", "font-weight": "bold", fill: "#7a2" }));
    if (info.rings) g.appendChild(BM.s("rect", { x: 3, y: 3, width: S - 6, height: S * 1.25 - 6, rx: 8, fill: "none", stroke: "#c0c8d8", "stroke-width": 2.5, "stroke-dasharray": "2 3" }));
    if (count > 1) {
      g.appendChild(BM.s("circle", { cx: S - 4, cy: 4, r: 13, fill: "#222", stroke: "#fff", "stroke-width": 1.5 }));
      g.appendChild(BM.text(S - 4, 9, "×" + count, { "font-size": 12, "font-weight": "bold", fill: "#fff", "text-anchor": "middle" }));
    }
    g.appendChild(BM.s("rect", { class: "hl", x: -3, y: -3, width: S + 6, height: S * 1.25 + 6, rx: 12, fill: "none", stroke: "none" }));
    g.appendChild(BM.title(info.name + (info.bonus ? " (+" + info.bonus + " points)" : "") + (info.rings ? " (silver ring)" : "") + "\n" + (info.text || "")));
    return g;
  }

  function draw(ctx) {
    var b = ctx.board, get = key(b), f = ctx.frame, W = 1200, H = 840;
    var svg = BM.svg(W, H, "infinitecity");
    svg.appendChild(BM.s("rect", { x: 0, y: 0, width: W, height: H, fill: "#25344a" }));
    var plays = ctx.all("spot");
    var names = {};
    plays.forEach(function (a) { names[a.where.card] = true; });
    var row = (b.peek && b.peek.length ? b.peek : b.hand) || [];
    if (!chosen || !names[chosen]) {
      chosen = null;
      for (var i = 0; i < row.length; i++) if (names[row[i].name]) { chosen = row[i].name; break; }
    }
    // bounds
    var pts = (b.tiles || []).map(function (t) { return [t.x, t.y]; }).concat(b.spots || []);
    if (!pts.length) pts = [[0, 0]];
    var minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    pts.forEach(function (p) { minX = Math.min(minX, p[0]); maxX = Math.max(maxX, p[0]); minY = Math.min(minY, p[1]); maxY = Math.max(maxY, p[1]); });
    var cols = maxX - minX + 1, rows = maxY - minY + 1;
    var areaW = W - 40, areaH = 600;
    var S = Math.min(100, Math.floor(Math.min(areaW / cols, areaH / rows)));
    var ox = 20 + (areaW - cols * S) / 2, oy = 16 + (areaH - rows * S) / 2;
    var city = BM.s("g", { class: "city" });
    svg.appendChild(city);
    // faint street grid
    for (var gx = 0; gx <= cols; gx++) city.appendChild(BM.s("line", { x1: ox + gx * S - 2, y1: oy - 2, x2: ox + gx * S - 2, y2: oy + rows * S - 2, stroke: "rgba(255,255,255,.05)" }));
    for (var gy = 0; gy <= rows; gy++) city.appendChild(BM.s("line", { x1: ox - 2, y1: oy + gy * S - 2, x2: ox + cols * S - 2, y2: oy + gy * S - 2, stroke: "rgba(255,255,255,.05)" }));
    (b.tiles || []).forEach(function (t) {
      var a = ctx.use(ctx.find("tile", function (tg) { return tg.x === t.x && tg.y === t.y; }));
      var g = tile(t, S, get);
      g.setAttribute("transform", "translate(" + (ox + (t.x - minX) * S) + "," + (oy + (t.y - minY) * S) + ")");
      city.appendChild(BM.clickable(g, a, ctx));
    });
    (b.spots || []).forEach(function (p) {
      var a = chosen ? ctx.find("spot", function (t) { return t.x === p[0] && t.y === p[1] && t.card === chosen; }) : null;
      var g = BM.s("g", { class: "spot", transform: "translate(" + (ox + (p[0] - minX) * S) + "," + (oy + (p[1] - minY) * S) + ")", "data-x": p[0], "data-y": p[1] });
      g.appendChild(BM.s("rect", { x: 4, y: 4, width: S - 10, height: S - 10, rx: 8, fill: a ? "rgba(255,209,102,.16)" : "rgba(255,255,255,.04)", stroke: "rgba(255,255,255,.35)", "stroke-width": 2, "stroke-dasharray": "6 5" }));
      if (a) g.appendChild(BM.text(S / 2 - 1, S / 2 + 9, "+", { "font-size": S * 0.4, fill: "#ffd166", "text-anchor": "middle" }));
      g.appendChild(BM.s("rect", { class: "hl", x: 2, y: 2, width: S - 6, height: S - 6, rx: 9, fill: "none", stroke: "none" }));
      city.appendChild(BM.clickable(g, a, ctx));
    });
    // every play of the chosen tile is on the board; the other tiles'
    // plays are reached by choosing them in the row below.
    plays.forEach(function (a) { ctx.use(a); });
    // hand row
    var hy = 648, HS = 116;
    svg.appendChild(BM.s("rect", { x: 10, y: hy - 20, width: W - 20, height: H - hy + 10, rx: 14, fill: "rgba(0,0,0,.28)" }));
    var fromPeek = b.peek && b.peek.length;
    svg.appendChild(BM.text(28, hy, fromPeek ? "THE LIBRARY'S TILES: PICK ONE TO LAY" : ctx.seat >= 0 ? "YOUR HAND" + (plays.length ? " — choose a tile, then a glowing square" : "") : "HANDS ARE HIDDEN FROM SPECTATORS",
      { "font-size": 13, fill: "#e9edf5", "font-weight": "bold", "letter-spacing": 1.5 }));
    var uniq = [], count = {};
    row.forEach(function (t) { if (!count[t.name]) { uniq.push(t); count[t.name] = 0; } count[t.name]++; });
    uniq.forEach(function (t, i) {
      var x = 28 + i * (HS + 16), y = hy + 14;
      var g = handTile(t, HS * 0.86, t.name === chosen, count[t.name]);
      g.setAttribute("transform", "translate(" + x + "," + y + ")");
      var back = ctx.use(ctx.find("hand", function (tg) { return tg.card === t.name; }));
      if (back) BM.clickable(g, back, ctx);
      else if (names[t.name]) {
        g.classList.add("can");
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", "choose " + t.name);
        g.addEventListener("click", function () { chosen = t.name; BM.rerender(); });
      }
      svg.appendChild(g);
    });
    // pile and supply
    var sx = W - 300;
    svg.appendChild(BM.text(sx, hy + 30, "Tiles in the pile: " + b.pile, { "font-size": 14, fill: "#e9edf5" }));
    (b.supply || []).forEach(function (n, s) {
      var y = hy + 56 + s * 26;
      svg.appendChild(BM.pawn(sx + 8, y - 5, 7, s));
      svg.appendChild(BM.text(sx + 24, y, BM.seatName(f, s) + ": " + n + " markers left" + ((b.handSizes || b.hand_sizes) ? " · " + (b.handSizes || b.hand_sizes)[s] + " in hand" : ""), { "font-size": 13, fill: "#cfd8e8" }));
    });
    return svg;
  }

  BM.games.infinitecity = {
    draw: draw,
    turn: function (b) { return b.current; },
    prompt: function (ctx) { return ctx.frame.your_turn ? ctx.board.prompt : ""; },
    seats: function (ctx) {
      var b = ctx.board;
      return (b.scores || []).map(function (s, i) {
        var rb = s.ringBonus !== undefined ? s.ringBonus : s.ring_bonus;
        return { seat: i, score: s.total, unit: "points", left: (b.left || [])[i],
          detail: s.groups + " in groups · " + s.bonus + " bonus · " + s.rings + " rings" + (rb ? " +" + rb : "") + " · " + (b.supply || [])[i] + " markers left",
          tip: "largest group " + s.largest };
      });
    },
    breakdown: function (ctx) {
      var b = ctx.board;
      return { head: ["Groups", "Bonus", "Rings", "Ring bonus"], rows: (b.scores || []).map(function (s) {
        return [s.groups, s.bonus, s.rings, s.ringBonus !== undefined ? s.ringBonus : s.ring_bonus];
      }) };
    },
  };
})();
