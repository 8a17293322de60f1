// tilec explorer: links the source to its CUDA and draws the tiles from the
// facts tilec put in #facts (layout maps as bits, as src/tileir/layout_map.c
// has them).  No libraries, nothing fetched.
(function () {
  "use strict";
  const started = performance.now();
  const facts = JSON.parse(document.getElementById("facts").textContent);
  const values = new Map(facts.values.map(function (v) { return [v.id, v]; }));
  const drawn = [];        // every grid on the page: {svg, map, mark}
  let thread = 0;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---- layout maps: which element register r of lane l of warp w holds ------------

  function numel(shape) { return shape.reduce(function (a, b) { return a * b; }, 1); }

  // The row-major index of the element: each set bit of r, lane and warp adds
  // 1 << bit to its dimension (lmap_coords).
  function elementOf(map, r, lane, warp) {
    const c = map.shape.map(function () { return 0; });
    const add = function (bits, x) {
      bits.forEach(function (b, i) { if ((x >> i) & 1 && b[0] >= 0) c[b[0]] += 1 << b[1]; });
    };
    add(map.reg, r); add(map.lane, lane); add(map.warp, warp);
    return c.reduce(function (lin, x, d) { return lin * map.shape[d] + x; }, 0);
  }

  // For every cell, its first owner (thread * regs + register), and for every
  // thread its cells; computed once per map.
  function owners(map) {
    if (map.owners) return map;
    const regs = 1 << map.reg.length, threads = 32 << map.warp.length;
    map.first = new Int32Array(numel(map.shape)).fill(-1);
    map.cells = new Int32Array(threads * regs);
    for (let t = 0; t < threads; t++)
      for (let r = 0; r < regs; r++) {
        const e = elementOf(map, r, t & 31, t >> 5);
        map.cells[t * regs + r] = e;
        if (map.first[e] < 0) map.first[e] = t * regs + r;
      }
    map.regs = regs;
    map.owners = true;
    return map;
  }

  // The cells thread t holds, each once (a register bit that moves no coordinate
  // gives a thread two registers of one element).
  function cellsOf(map, t) {
    owners(map);
    if (t >= 32 << map.warp.length) return [];
    return Array.from(new Set(map.cells.subarray(t * map.regs, (t + 1) * map.regs)));
  }

  // ---- grids ----------------------------------------------------------------------

  function gridShape(map) {
    const n = numel(map.shape), rank = map.shape.length;
    const cols = rank === 1 ? Math.min(n, facts.wrap) : map.shape[rank - 1];
    return { rows: n / cols, cols: cols, px: Math.max(4, Math.min(28, Math.floor(640 / cols))) };
  }

  // One rect per element in row-major order (rect i is element i), then labels.
  function gridSvg(map, colour) {
    owners(map);
    const g = gridShape(map), px = g.px, n = g.rows * g.cols;
    const rects = [], labels = [];
    for (let i = 0; i < n; i++) {
      const o = map.first[i], t = Math.floor(o / map.regs), r = o % map.regs;
      const x = (i % g.cols) * px, y = Math.floor(i / g.cols) * px;
      rects.push('<rect x="' + x + '" y="' + y + '" width="' + px + '" height="' + px + '" fill="' +
                 (colour ? colour(i) : facts.colours[(t >> 5) % 8]) + '" stroke="#fff" data-t="' + t +
                 '" data-r="' + r + '"/>');
      if (px >= 18 && !colour)
        labels.push('<text x="' + (x + px / 2) + '" y="' + (y + px / 2 - 1) + '">' + (t & 31) + '</text><text x="' +
                    (x + px / 2) + '" y="' + (y + px - 3) + '">r' + r + "</text>");
    }
    const fs = Math.max(6, Math.floor(px / 3));
    return '<svg xmlns="http://www.w3.org/2000/svg" width="' + (g.cols * px + 1) + '" height="' + (g.rows * px + 1) +
           '"' + (px < 10 ? ' class="small"' : "") + ' font-family="monospace" font-size="' + fs + '"><g>' + rects.join("") +
           '</g><g fill="#fff" text-anchor="middle">' + labels.join("") + '</g><g class="marks"></g></svg>';
  }

  function describeCell(map, i) {
    const g = gridShape(map), rank = map.shape.length;
    const c = [];
    for (let d = rank - 1, x = i; d >= 0; d--) { c.unshift(x % map.shape[d]); x = Math.floor(x / map.shape[d]); }
    const holders = [];
    for (let k = 0; k < map.cells.length; k++) if (map.cells[k] === i) holders.push(k);
    const o = holders[0], t = Math.floor(o / map.regs);
    return "(" + c.join(", ") + "): thread " + t + " = warp " + (t >> 5) + " lane " + (t & 31) + ", register " +
           (o % map.regs) + (holders.length > 1 ? "; " + holders.length + " threads hold copies" : "") +
           (g.cols !== map.shape[rank - 1] ? "" : "");
  }

  // A grid in `box`, drawn now; `mark` outlines the chosen thread's cells.
  function drawGrid(box, map, mark, colour) {
    box.innerHTML = gridSvg(map, colour);
    const svg = box.firstChild, rects = svg.firstChild.children;
    const entry = { svg: svg, map: map, rects: rects, mark: mark || markOwn };
    svg.addEventListener("mousemove", function (ev) {
      const i = Array.prototype.indexOf.call(rects, ev.target);
      if (i >= 0) document.getElementById("hover-info").textContent = describeCell(map, i);
    });
    svg.addEventListener("click", function (ev) {
      const t = ev.target.getAttribute && ev.target.getAttribute("data-t");
      if (t !== null && t !== undefined) setThread(+t);
    });
    drawn.push(entry);
    entry.mark(entry);
    box.dataset.drawn = "1";
    return entry;
  }

  // The chosen thread's cells, outlined in a layer of their own: a thread change
  // redraws a few rects, not the whole grid.
  function markOwn(entry) {
    const g = gridShape(entry.map), px = g.px;
    entry.svg.lastChild.innerHTML = cellsOf(entry.map, thread).map(function (i) {
      return '<rect x="' + (i % g.cols) * px + '" y="' + Math.floor(i / g.cols) * px + '" width="' + px +
             '" height="' + px + '" data-i="' + i + '"/>';
    }).join("");
  }

  // Grids are drawn as they scroll into view: a large kernel has hundreds.
  const pending = new Map();
  const observer = "IntersectionObserver" in window ? new IntersectionObserver(function (seen) {
    for (const s of seen) if (s.isIntersecting) drawPending(s.target);
  }, { rootMargin: "400px" }) : null;

  function lazyGrid(box, draw) {
    pending.set(box, draw);
    if (observer) observer.observe(box); else drawPending(box);
  }

  function drawPending(box) {
    const draw = pending.get(box);
    if (!draw) return;
    pending.delete(box);
    if (observer) observer.unobserve(box);
    draw();
  }

  function setThread(t) {
    const max = facts.threads - 1;
    thread = Math.max(0, Math.min(max, t | 0));
    document.getElementById("thread").value = thread;
    document.getElementById("thread-info").textContent =
      "warp " + (thread >> 5) + ", lane " + (thread & 31) + " (of " + facts.threads + " threads)";
    for (const d of drawn) d.mark(d);
  }

  // ---- source <-> CUDA -------------------------------------------------------------

  const lines = new Map();   // key "file.py:N" -> its lines in both panes
  for (const ln of document.querySelectorAll(".ln[data-loc]")) {
    const k = ln.dataset.loc;
    if (!lines.has(k)) lines.set(k, []);
    lines.get(k).push(ln);
  }

  function light(cls, key) {
    for (const ln of document.querySelectorAll(".ln." + cls)) ln.classList.remove(cls);
    for (const ln of lines.get(key) || []) ln.classList.add(cls);
  }

  function reveal(pane, key) {
    const first = (lines.get(key) || []).find(function (ln) { return pane.contains(ln); });
    if (first)
      pane.scrollTop += first.getBoundingClientRect().top - pane.getBoundingClientRect().top - pane.clientHeight / 3;
  }

  function selectLoc(key, from) {
    light("sel", key);
    for (const pane of [document.getElementById("src"), document.getElementById("cu")])
      if (pane !== from) reveal(pane, key);
    for (const c of document.querySelectorAll(".card"))
      c.classList.toggle("sel", c.dataset.loc === key || (c.dataset.locs || "").split(" ").indexOf(key) >= 0);
  }

  for (const pane of [document.getElementById("src"), document.getElementById("cu")]) {
    pane.addEventListener("mouseover", function (ev) {
      const ln = ev.target.closest(".ln[data-loc]");
      if (ln) light("hover", ln.dataset.loc);
    });
    pane.addEventListener("mouseleave", function () { light("hover", ""); });
    pane.addEventListener("click", function (ev) {
      const ln = ev.target.closest(".ln[data-loc]");
      if (ln) selectLoc(ln.dataset.loc, pane);
    });
  }

  function locLink(key) {
    const a = el("span", { "class": "loc" }, key);
    a.addEventListener("click", function () { selectLoc(key, null); });
    return a;
  }

  // ---- the sections --------------------------------------------------------------

  function valueTitle(v) {
    return "%" + v.id + (v.name ? " " + v.name : "") + " = " + v.op + ": " + v.shape.join("x") + " " +
           (v.ptr ? "*" : "") + v.dtype + ", " + v.layout;
  }

  function card(parent, title, loc) {
    const c = el("div", { "class": "card" });
    if (loc) c.dataset.loc = loc;
    const h = el("h3", {}, title + " ");
    if (loc) h.appendChild(locLink(loc));
    c.appendChild(h);
    parent.appendChild(c);
    return c;
  }

  function layoutNote(map) {
    return el("p", {}, map.layout + ". A thread owns " + map.owns + "; " + (1 << map.reg.length) +
                       " registers per thread.");
  }

  function gridBox(parent, map, vs) {
    const box = el("div", { "class": "grid", "data-values": vs.map(function (v) { return v.id; }).join(" ") });
    parent.appendChild(box);
    lazyGrid(box, function () { drawGrid(box, map); });
  }

  function valueCard(parent, v, label) {
    const map = facts.maps[v.map];
    const c = card(parent, (label ? label + ": " : "") + valueTitle(v), v.loc);
    c.appendChild(layoutNote(map));
    gridBox(c, map, [v]);
    return c;
  }

  // One card per layout and shape, listing the values that have it: a kernel's
  // hundred values have a dozen pictures.
  function tiles() {
    const list = document.getElementById("tile-list"), byMap = new Map();
    for (const v of facts.values) {
      if (!byMap.has(v.map)) byMap.set(v.map, []);
      byMap.get(v.map).push(v);
    }
    for (const [m, vs] of byMap) {
      const map = facts.maps[m];
      const c = card(list, map.shape.join("x") + ", " + vs[0].layout + ": " + vs.length + " value" +
                           (vs.length > 1 ? "s" : ""));
      c.dataset.locs = vs.map(function (v) { return v.loc; }).join(" ");
      const ul = el("ul", { "class": "values" });
      for (const v of vs) {
        const li = el("li", {}, valueTitle(v) + " ");
        li.appendChild(locLink(v.loc));
        ul.appendChild(li);
      }
      c.appendChild(ul);
      c.appendChild(layoutNote(map));
      gridBox(c, map, vs);
    }
  }

  // Coordinates of element i and back.
  function unflat(shape, i) {
    const c = [];
    for (let d = shape.length - 1; d >= 0; d--) { c.unshift(i % shape[d]); i = Math.floor(i / shape[d]); }
    return c;
  }

  // For the chosen thread: the elements it combines itself, those that come by
  // shuffles from lanes of its warp, and those from other warps (shared memory).
  function markReduction(axis) {
    return function (entry) {
      const map = owners(entry.map), shape = map.shape, rects = entry.rects;
      const group = new Set(), keyOf = function (i) {
        const c = unflat(shape, i); c[axis] = 0; return c.join(",");
      };
      for (const i of cellsOf(map, thread)) group.add(keyOf(i));
      const cat = new Int8Array(rects.length);
      for (let k = 0; k < map.cells.length; k++) {
        const i = map.cells[k], t = Math.floor(k / map.regs);
        if (!group.has(keyOf(i))) continue;
        cat[i] = Math.max(cat[i], t === thread ? 3 : (t >> 5) === (thread >> 5) ? 2 : 1);
      }
      const names = ["quiet", "smem", "shfl", "self"];
      for (let i = 0; i < rects.length; i++) {
        rects[i].classList.remove("quiet", "smem", "shfl", "self");
        rects[i].classList.add(names[cat[i]]);
      }
    };
  }

  function reductions() {
    const list = document.getElementById("reduction-list");
    if (!facts.reductions.length) list.appendChild(el("p", { "class": "note" }, "None in this kernel."));
    for (const r of facts.reductions) {
      const v = values.get(r.input), map = facts.maps[v.map];
      const c = card(list, r.kind + " " + r.what + " along dim " + r.axis + " of %" + v.id +
                           (v.name ? " " + v.name : ""), r.loc);
      const ul = el("ul");
      for (const s of r.steps) ul.appendChild(el("li", {}, s));
      c.appendChild(ul);
      const legend = el("p", { "class": "legend" });
      legend.innerHTML = '<span style="outline:2px solid #000">combined by the thread itself</span>' +
                         '<span style="background:#555;color:#fff">shuffled in from lanes of its warp</span>' +
                         '<span style="background:#bbb">through shared memory from other warps</span>';
      c.appendChild(legend);
      const box = el("div", { "class": "grid", "data-reduce": v.id, "data-axis": r.axis });
      c.appendChild(box);
      lazyGrid(box, function () { drawGrid(box, map, markReduction(r.axis)); });
    }
  }

  // ---- shared buffers: 32 banks of 4 bytes per 128-byte row --------------------------

  function swizzleCol(swz, row, col) {
    if (swz[2] <= 1) return col;
    return ((Math.floor(col / swz[0]) ^ (Math.floor(row / swz[1]) % swz[2])) * swz[0]) + col % swz[0];
  }

  // Element offset in the buffer of row-major element `lin` (smem_storage_index).
  function convertIndex(cv, lin) {
    const row = lin >> cv.rowLog2, col = lin & ((1 << cv.rowLog2) - 1);
    const i = (row << cv.rowLog2) + swizzleCol(cv.swz, row, col);
    return cv.pad ? i + (i >> cv.padLog2) * cv.pad : i;
  }

  function stageIndex(st, row, col) {
    const pad = st.pad ? (st.padRowsLog2 ? (row >> st.padRowsLog2) * st.pad : row * st.pad) : 0;
    return row * st.cols + pad + swizzleCol(st.swz, row, col);
  }

  // The buffer as rows of 32 words; word w holds what `label(w)` says, coloured by `hue(w)`.
  function bankGrid(box, words, info, mark) {
    const map = { shape: [Math.ceil(words / 32), 32], reg: [], lane: [], warp: [] };
    const fake = { shape: map.shape };
    box.innerHTML = "";
    const px = 16, rows = fake.shape[0];
    const parts = [];
    for (let w = 0; w < rows * 32; w++) {
      const x = (w % 32) * px, y = Math.floor(w / 32) * px;
      parts.push('<rect x="' + x + '" y="' + (y + 14) + '" width="' + px + '" height="' + px + '" fill="' +
                 info(w).fill + '" stroke="#fff"/>');
    }
    let head = "";
    for (let b = 0; b < 32; b += 4) head += '<text x="' + (b * px + 2) + '" y="10">' + b + "</text>";
    box.innerHTML = '<svg xmlns="http://www.w3.org/2000/svg" width="' + (32 * px + 1) + '" height="' +
                    (rows * px + 15) + '" font-family="monospace" font-size="9"><g>' + parts.join("") +
                    "</g><g>" + head + '</g><g class="lanes" fill="#000" text-anchor="middle"></g></svg>';
    const svg = box.firstChild;
    const entry = { svg: svg, map: map, rects: svg.firstChild.children, mark: mark };
    svg.addEventListener("mousemove", function (ev) {
      const w = Array.prototype.indexOf.call(entry.rects, ev.target);
      if (w >= 0) document.getElementById("hover-info").textContent =
        "word " + w + " (bank " + (w % 32) + "): " + info(w).text;
    });
    drawn.push(entry);
    mark(entry);
  }

  // Extra wavefronts of one warp-wide access (banks.c): per phase of 128 bytes,
  // the most distinct words any bank serves, less one.
  function extraWavefronts(byLane, bytes) {
    const phase = bytes <= 4 ? 32 : 128 / bytes;
    let extra = 0;
    for (let p0 = 0; p0 < 32; p0 += phase) {
      const banks = new Map();
      for (let l = p0; l < p0 + phase; l++)
        for (const w of byLane[l] || []) {
          if (!banks.has(w % 32)) banks.set(w % 32, new Set());
          banks.get(w % 32).add(w);
        }
      let worst = 1;
      for (const s of banks.values()) worst = Math.max(worst, s.size);
      extra += worst - 1;
    }
    return extra;
  }

  function markAccess(entry, byLane, note) {
    const rects = entry.rects, g = entry.svg.querySelector(".lanes");
    for (const r of entry.svg.querySelectorAll("rect.hit")) r.classList.remove("hit");
    let labels = "";
    byLane.forEach(function (words, l) {
      for (const w of words) {
        if (!rects[w]) continue;
        rects[w].classList.add("hit");
        labels += '<text x="' + ((w % 32) * 16 + 8) + '" y="' + (Math.floor(w / 32) * 16 + 25) + '">' + l + "</text>";
      }
    });
    g.innerHTML = labels;
    note.textContent = note.dataset.what + ": the " + byLane.length + " lanes of warp " + (thread >> 5) +
                       " touch words in " + new Set([].concat.apply([], byLane).map(function (w) { return w % 32; })).size +
                       " banks; extra wavefronts: " + extraWavefronts(byLane, note.dataset.bytes | 0) + ".";
  }

  function convertBuffer(parent, b) {
    const cv = b.convert, src = values.get(cv.src), dst = values.get(cv.dst);
    const c = card(parent, "layout conversion " + src.layout + " → " + dst.layout + ", " + b.bytes + " bytes at " +
                           b.offset, b.loc);
    const pair = el("div", { "class": "pair" });
    valueCard(pair, src, "from");
    valueCard(pair, dst, "to");
    c.appendChild(pair);
    const swz = cv.swz[2] > 1 ? "columns swizzled: col' = ((col / " + cv.swz[0] + ") ^ ((row / " + cv.swz[1] +
                ") % " + cv.swz[2] + ")) * " + cv.swz[0] + " + col % " + cv.swz[0] : "no swizzle";
    const pad = cv.pad ? cv.pad + " elements of padding after every " + (1 << cv.padLog2) : "no padding";
    c.appendChild(el("p", {}, "The buffer holds the tile row-major in rows of " + (1 << cv.rowLog2) + " (" + swz +
                              "; " + pad + "); reads take " + cv.readVec + " element(s) at once. tilec counted " +
                              cv.conflicts + " extra wavefronts (" + cv.plainConflicts + " without swizzle or padding)."));
    const ctl = el("div", { "class": "controls" });
    ctl.innerHTML = '<label>show <select><option value="w">the write of register</option>' +
                    '<option value="r">the read of register</option></select></label> <input type="number" min="0" value="0" style="width:4em">';
    c.appendChild(ctl);
    const note = el("p", {});
    c.appendChild(note);
    const box = el("div", { "class": "grid" });
    c.appendChild(box);
    const smap = facts.maps[src.map], dmap = facts.maps[dst.map];
    let rowOf = null;      // the tile row each word holds, -1 padding (filled when drawn)
    const info = function (w) {
      return rowOf[w] < 0 ? { fill: "#eee", text: "padding" } :
        { fill: facts.colours[rowOf[w] % 8], text: "tile row " + rowOf[w] };
    };
    const mark = function (entry) {
      const read = ctl.querySelector("select").value === "r", map = owners(read ? dmap : smap);
      const vec = read ? cv.readVec : 1, r = Math.min(+ctl.querySelector("input").value || 0, map.regs - 1) * vec;
      const warp = (thread >> 5) % (1 << map.warp.length), byLane = [];
      for (let l = 0; l < 32; l++) {
        const first = (convertIndex(cv, elementOf(map, r, l, warp)) * cv.elem) >> 2;
        const words = [];
        for (let k = 0; k < Math.max(1, (vec * cv.elem) >> 2); k++) words.push(first + k);
        byLane.push(words);
      }
      note.dataset.what = (read ? "read" : "write") + " of register " + r;
      note.dataset.bytes = vec * cv.elem;
      markAccess(entry, byLane, note);
    };
    ctl.addEventListener("change", function () { for (const d of drawn) if (d.mark === mark) mark(d); });
    lazyGrid(box, function () {
      rowOf = new Int32Array(Math.ceil(b.bytes / 4)).fill(-1);
      for (let lin = 0; lin < numel(smap.shape); lin++)
        rowOf[(convertIndex(cv, lin) * cv.elem) >> 2] = lin >> cv.rowLog2;
      bankGrid(box, Math.ceil(b.bytes / 4), info, mark);
    });
  }

  // A staged dot operand: one slot; an ldmatrix phase reads 16 bytes from each of 8 rows.
  function stageBuffer(parent, b) {
    const st = b.stage, perChunk = 16 / st.elem;
    const c = card(parent, "operand " + st.operand + " of tl.dot: " + st.rows + " x " + st.cols + ", " + st.slots +
                           " slot(s), " + b.bytes + " bytes at " + b.offset, b.loc);
    const swz = st.swz[2] > 1 ? "16-byte chunks swizzled: col' = ((col / " + st.swz[0] + ") ^ ((row / " + st.swz[1] +
                ") % " + st.swz[2] + ")) * " + st.swz[0] + " + col % " + st.swz[0] : "no swizzle";
    c.appendChild(el("p", {}, "One slot drawn, coloured by the 16-byte chunk of its row a word holds (" + swz +
                              (st.pad ? "; " + st.pad + " elements of padding" : "") + "). " +
                              (st.ldmatrix ? "Read with ldmatrix" + (st.trans ? ".trans" : "") +
                               ": 8 lanes give the addresses of 8 rows of 16 bytes at once. " : "") +
                              "Outlined: the chunk of rows 8k..8k+7 that the chosen thread's lane group reads."));
    const note = el("p", {});
    c.appendChild(note);
    const box = el("div", { "class": "grid" });
    c.appendChild(box);
    const words = Math.ceil((stageIndex(st, st.rows - 1, st.cols - 1) + 1) * st.elem / 4);
    let what = null;       // row * 1024 + chunk of each word, -1 padding (filled when drawn)
    const info = function (w) {
      return what[w] < 0 ? { fill: "#eee", text: "padding" } :
        { fill: facts.colours[(what[w] % 1024) % 8], text: "row " + (what[w] >> 10) + ", chunk " + (what[w] % 1024) +
          " (columns " + (what[w] % 1024) * perChunk + ".." + ((what[w] % 1024 + 1) * perChunk - 1) + ")" };
    };
    const mark = function (entry) {
      const lane = thread & 31, row0 = (lane >> 3) * 8 % st.rows, chunk = 0, byLane = [];
      for (let l = 0; l < 8; l++) {
        const first = (stageIndex(st, (row0 + l) % st.rows, chunk * perChunk) * st.elem) >> 2;
        byLane.push([first, first + 1, first + 2, first + 3]);
      }
      note.dataset.what = "rows " + row0 + ".." + (row0 + 7) + ", chunk 0";
      note.dataset.bytes = 16;
      markAccess(entry, byLane, note);
    };
    lazyGrid(box, function () {
      what = new Int32Array(words).fill(-1);
      for (let row = 0; row < st.rows; row++)
        for (let col = 0; col < st.cols; col += perChunk)
          for (let k = 0; k < 4; k++) what[((stageIndex(st, row, col) * st.elem) >> 2) + k] = row * 1024 + col / perChunk;
      bankGrid(box, words, info, mark);
    });
  }

  function buffers() {
    document.getElementById("smem-text").textContent = facts.smemText || "No shared memory in this kernel.";
    const list = document.getElementById("buffer-list");
    for (const b of facts.buffers) {
      if (b.convert) convertBuffer(list, b);
      else if (b.stage) stageBuffer(list, b);
    }
  }

  function dots() {
    const list = document.getElementById("dot-list");
    if (!facts.dots.length) list.appendChild(el("p", { "class": "note" }, "None in this kernel."));
    for (const d of facts.dots) {
      const c = card(list, "tl.dot " + (d.mma ? "on tensor cores (mma.sync)" : "with FMAs"), d.loc);
      c.appendChild(el("p", {}, d.mma ? "Each warp computes 16x8 tiles of the accumulator with mma.sync; the outlined " +
        "cells are the fragments the chosen thread holds: its registers of A and B (each 32-bit register packs the " +
        "elements of consecutive registers along K) and of the accumulator." :
        "Each thread multiplies its rows of A by its columns of B for all of K."));
      const pair = el("div", { "class": "pair" });
      valueCard(pair, values.get(d.a), "A");
      valueCard(pair, values.get(d.b), "B");
      valueCard(pair, values.get(d.c), "C");
      c.appendChild(pair);
    }
  }

  function accessTable() {
    const t = document.getElementById("accesses");
    if (!facts.accesses.length) { t.remove(); return; }
    for (const a of facts.accesses) {
      const tr = el("tr");
      const th = el("th");
      th.appendChild(locLink(a.loc));
      tr.appendChild(th);
      tr.appendChild(el("td", {}, a.op + " " + a.what + ": " + a.vec + " element" + (a.vec > 1 ? "s" : "") +
                                  " (" + a.bytes + " bytes) per access" +
                                  (a.guarded ? " where all are in bounds (the mask is only known at run time), else one at a time" : "")));
      t.appendChild(tr);
    }
  }

  accessTable();
  tiles();
  reductions();
  buffers();
  dots();
  document.getElementById("thread").max = facts.threads - 1;
  document.getElementById("thread").addEventListener("input", function (ev) { setThread(+ev.target.value); });
  setThread(0);
  // start both panes at the kernel's first statement
  const first = document.querySelector("#cu .ln.sc");
  if (first) for (const pane of [document.getElementById("src"), document.getElementById("cu")])
    reveal(pane, first.dataset.loc);

  // For tests and for people: draw everything now, choose a thread or a line.
  window.explorer = {
    facts: facts,
    initMs: performance.now() - started,
    drawAll: function () { for (const box of Array.from(pending.keys())) drawPending(box); return drawn.length; },
    setThread: setThread,
    selectLoc: function (key) { selectLoc(key, null); },
  };
})();
