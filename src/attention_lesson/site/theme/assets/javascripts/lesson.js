// The lesson's live figures: section 2's query–key explorer (and its tasks), and the heatmaps' rows that answer
// a pointer. Every number and word comes from the figure's data attribute, written at build time from the
// listings' own tensors in the page's language (attention_lesson/site/figures.py, explorer.py). Without this
// script the figures stay as drawn: the explorer at the listing's query, its tasks a plain list, the heatmaps
// as they are.
(() => {
  const f32 = Math.fround;

  // A value as the lesson's figures write it: Python's round(v, 2) with two decimals. toFixed rounds the
  // exact binary value too; it differs only on exact ties (v × 8 odd), which Python rounds to even.
  const fmt = (v) => {
    let s = v.toFixed(2);
    if (Number.isInteger(v * 8) && !Number.isInteger(v * 4)) {
      let n = Math.floor(v * 100);
      if (n % 2) n += 1;
      s = (n / 100).toFixed(2);
    }
    return s === "-0.00" ? "0.00" : s;
  };
  const r1 = (v) => String(Math.round(v * 10) / 10);
  const set = (el, attrs) => Object.entries(attrs).forEach(([k, v]) => el.setAttribute(k, v));
  // {name} in a translated text replaced by a value as it is (a function: "$&" in a value stays "$&").
  const fill = (template, name, value) => template.split(`{${name}}`).join(value);
  // Whether the weights meet a task's goal: the vocabulary of explorer.py (_GOALS, _met).
  const met = (goal, w) => {
    if (goal.kind === "above") return w[goal.at] > goal.value;
    if (goal.kind === "more") return w[goal.at] > w[goal.than];
    const mean = w.reduce((a, v) => a + v, 0) / w.length;
    if (goal.kind === "even") return Math.max(...w.map((v) => Math.abs(v - mean))) <= goal.within;
    return false;
  };

  // ---------------------------------------------------------------------------------- the explorer
  document.querySelectorAll("[data-qk]").forEach((fig) => {
    const { keys, labels, presets, scales, range, step, plane, text, scores: [low, high], goals = [] } =
      JSON.parse(fig.dataset.qk);
    const $ = (s) => fig.querySelector(s);
    const $$ = (s) => fig.querySelectorAll(s);
    const svg = $("svg");
    const handle = $(".lesson-qk__handle");
    const [shaft, head] = $(".lesson-qk__query").children;
    const shadow = $(".lesson-qk__shadow");
    const line = $(".lesson-qk__line");
    const drops = $$(".lesson-qk__drop");
    const feet = $$(".lesson-qk__foot");
    const qLabel = $(".lesson-qk__qlabel");
    const bars = $$(".lesson-qk__bar");
    const values = $$(".lesson-qk__value");
    const input = $("input[type=range]");
    const scaleOut = $(".lesson-qk__scale output");
    const qOut = $(".lesson-qk__q");
    const live = $(".lesson-qk__live");
    const buttons = $$(".lesson-qk__preset");
    const tasks = [...$$(".lesson-qk__task")];
    const news = $(".lesson-qk__news");
    const done = goals.map(() => false);
    const n = keys.length;
    const grid = Math.round(1 / step);
    const [ox, oy] = plane.origin;
    const unit = plane.unit;
    const mx = keys.reduce((a, k) => a + k[0], 0);
    const my = keys.reduce((a, k) => a + k[1], 0);
    let q = presets[0].slice();
    let timer;
    let last = [];

    const pt = (x, y) => [ox + unit * x, oy - unit * y];
    // As figures._arrow: the shaft's end and the head's points of an arrow from [0, 0] to [x, y].
    const arrow = (x, y, [len, width]) => {
      const [tx, ty] = pt(x, y);
      const dx = tx - ox;
      const dy = ty - oy;
      const d = Math.hypot(dx, dy);
      if (d < len) return [tx, ty, ""];
      const ux = dx / d;
      const uy = dy / d;
      const w = width / 2;
      const bx = tx - ux * len;
      const by = ty - uy * len;
      const p = [tx, ty, bx - uy * w, by + ux * w, bx + uy * w, by - ux * w].map(r1);
      return [bx, by, `${p[0]},${p[1]} ${p[2]},${p[3]} ${p[4]},${p[5]}`];
    };
    const bar = (el, v, lo, hi) => {
      const zero = -lo / (hi - lo);
      const at = (v - lo) / (hi - lo);
      el.style.left = `${(100 * Math.min(zero, at)).toFixed(2)}%`;
      el.style.width = `${(100 * Math.abs(at - zero)).toFixed(2)}%`;
    };
    const snap = (v) => Math.min(range[1], Math.max(range[0], Math.round(v * grid) / grid));

    const draw = () => {
      const scale = scales[Number(input.value)];
      // The scores in float32 as torch computes k @ q: each product rounded, then their sum. (A BLAS that
      // fuses the multiply and the add, as MKL does on AVX-512, differs in the last bit at a third of the
      // grid, which shows only at a tie of the third decimal: no script can know the reader's CPU.) The
      // softmax in double then matches torch's float32 to the two decimals shown, on every point of the grid
      // at every multiplier (all 11,025 states compared once; tests/test_browser.py reads every score and a
      // planned third of the weights on each run).
      const qx = f32(q[0]);
      const qy = f32(q[1]);
      const scores = keys.map(([a, b]) => f32(f32(a * qx) + f32(b * qy)));
      const z = scores.map((s) => s * scale);
      const top = Math.max(...z);
      const e = z.map((v) => Math.exp(v - top));
      const sum = e.reduce((a, b) => a + b, 0);
      const weights = e.map((v) => v / sum);
      scores.forEach((s, i) => {
        bar(bars[i], s, low, high);
        values[i].textContent = fmt(s);
      });
      weights.forEach((w, i) => {
        bar(bars[n + i], w, 0, 1);
        values[n + i].textContent = fmt(w);
      });

      const [x2, y2, points] = arrow(q[0], q[1], plane.query);
      set(shaft, { x2: r1(x2), y2: r1(y2) });
      set(head, { points });
      const [hx, hy] = pt(q[0], q[1]);
      set(handle, { transform: `translate(${r1(hx)} ${r1(hy)})` });
      const len = Math.hypot(q[0], q[1]);
      set(shadow, { visibility: len ? "visible" : "hidden" });
      if (len) {
        const ux = q[0] / len;
        const uy = q[1] / len;
        const [a, b] = [pt(-3 * ux, -3 * uy), pt(3 * ux, 3 * uy)];
        set(line, { x1: r1(a[0]), y1: r1(a[1]), x2: r1(b[0]), y2: r1(b[1]) });
        keys.forEach(([kx, ky], i) => {
          const c = kx * ux + ky * uy;
          const [fx, fy] = pt(ux * c, uy * c);
          set(drops[i], { x2: r1(fx), y2: r1(fy) });
          set(feet[i], { cx: r1(fx), cy: r1(fy) });
        });
        const side = -uy * mx + ux * my > 0 ? -1 : 1;
        const [lx, ly] = pt(q[0] / 2 - side * uy * 0.09, q[1] / 2 + side * ux * 0.09);
        set(qLabel, { x: r1(lx), y: r1(ly) });
      }

      scaleOut.textContent = `×${scale}`;
      input.setAttribute("aria-valuetext", scaleOut.textContent);
      qOut.textContent = `q = [${fmt(q[0])}, ${fmt(q[1])}]`;
      set(handle, { "aria-valuenow": q[0], "aria-valuetext": qOut.textContent });
      buttons.forEach((b, i) => b.classList.toggle("is-current", presets[i][0] === q[0] && presets[i][1] === q[1]));
      clearTimeout(timer); // a screen reader hears the weights once the query rests
      timer = setTimeout(() => {
        live.textContent = fill(text.live, "weights", labels.map((l, i) => `${l} ${fmt(weights[i])}`).join(text.sep));
      }, 400);
      last = weights;
    };
    // A task is ticked when the reader lets go (pointer up, a key, a preset, the multiplier set) of a query and
    // multiplier that meet its goal, so a drag that only passes through ticks nothing; it stays ticked and says
    // why it holds. A screen reader hears it at once (the tasks' own live region), and "(done)" after it.
    const why = (goal, w) => {
      const mean = w.reduce((a, v) => a + v, 0) / w.length;
      const [at, than] = [goal.at ?? 0, goal.than ?? 0]; // the numbers a goal of another kind does not have
      const words = { label: labels[at], weight: fmt(w[at]), value: fmt(goal.value ?? 0), other: labels[than],
        other_weight: fmt(w[than]), mean: fmt(mean), within: fmt(goal.within ?? 0) };
      return Object.entries(words).reduce((t, [k, v]) => fill(t, k, v), text.why[goal.kind]);
    };
    const check = () => {
      const weights = last;
      const now = [];
      goals.forEach((goal, i) => {
        if (done[i] || !tasks[i] || !met(goal, weights)) return;
        done[i] = true;
        const item = tasks[i];
        item.classList.add("is-done");
        item.querySelector(".lesson-qk__mark").textContent = "✓";
        const said = document.createElement("span");
        said.className = "lesson-qk__sr";
        said.textContent = ` ${text.done}`;
        const reason = document.createElement("span");
        reason.className = "lesson-qk__why";
        reason.textContent = why(goal, weights);
        item.append(said, reason);
        now.push(fill(text.news, "task", item.querySelector(".lesson-qk__text").textContent));
      });
      if (now.length) news.textContent = now.join(" ");
    };
    const moveTo = (x, y) => {
      const next = [snap(x), snap(y)];
      if (next[0] !== q[0] || next[1] !== q[1]) {
        q = next;
        draw();
      }
    };
    const fromPointer = (ev) => {
      const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(svg.getScreenCTM().inverse());
      moveTo((p.x - ox) / unit, (oy - p.y) / unit);
    };

    let dragging = null;
    svg.addEventListener("pointerdown", (ev) => {
      // A finger on the plane scrolls the page (a tap moves the query, below); on the handle it drags.
      if (ev.pointerType === "touch" && !handle.contains(ev.target)) return;
      dragging = ev.pointerId;
      fig.classList.add("is-pointer"); // the handle takes the focus, without a keyboard's focus ring
      svg.setPointerCapture(ev.pointerId);
      ev.preventDefault();
      handle.focus({ preventScroll: true });
      fromPointer(ev);
    });
    // touch-action does not reach inside an SVG: a finger that starts on the handle must not scroll.
    handle.addEventListener("touchstart", (ev) => ev.preventDefault(), { passive: false });
    svg.addEventListener("pointermove", (ev) => ev.pointerId === dragging && fromPointer(ev));
    const stop = (ev) => {
      if (ev.pointerId === dragging) {
        dragging = null;
        check();
      }
    };
    svg.addEventListener("pointerup", stop);
    svg.addEventListener("pointercancel", stop);
    svg.addEventListener("click", (ev) => {
      fromPointer(ev);
      check();
    });
    handle.addEventListener("keydown", (ev) => {
      const d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] }[ev.key];
      const s = (ev.shiftKey ? 5 : 1) / grid;
      fig.classList.remove("is-pointer");
      if (d) moveTo(q[0] + d[0] * s, q[1] + d[1] * s);
      else if (ev.key === "Home") moveTo(...presets[0]);
      else return;
      ev.preventDefault();
      check();
    });
    buttons.forEach((b, i) =>
      b.addEventListener("click", () => {
        q = presets[i].slice();
        draw();
        check();
      }),
    );
    input.addEventListener("input", draw);
    input.addEventListener("change", check);

    handle.setAttribute("tabindex", "0");
    [input, ...buttons].forEach((el) => {
      el.disabled = false;
    });
    buttons[0].classList.add("is-current");
    fig.classList.add("is-live");
  });

  // --------------------------------------------------------------------------------- the heatmaps
  document.querySelectorAll("[data-heat]").forEach((fig) => {
    const { labels, weights, box, cells, text } = JSON.parse(fig.dataset.heat);
    const plot = fig.querySelector(".lesson-heat__plot");
    const out = fig.querySelector(".lesson-heat__readout");
    const [left, top, width, height] = box;
    let focused = -1;

    // Row i as words, the entry of column j (under the pointer) in bold.
    const parts = (i) => {
      const seen = labels.map((_, c) => c).filter((c) => weights[i][c] !== null);
      const masked = labels.filter((_, c) => weights[i][c] === null);
      const [before, after] = text.row.replace("{query}", labels[i]).split("{weights}");
      const tail = after + (masked.length ? text.masked.replace("{words}", masked.join(text.sep)) : "");
      return { before, seen, tail };
    };
    const plain = (i) => {
      const { before, seen, tail } = parts(i);
      return before + seen.map((c) => `${labels[c]} ${weights[i][c]}`).join(text.sep) + tail;
    };
    const show = (i, j = -1) => {
      if (i < 0) {
        out.textContent = text.hint;
        return;
      }
      const { before, seen, tail } = parts(i);
      out.textContent = before;
      seen.forEach((c, k) => {
        if (k) out.append(text.sep);
        const el = document.createElement(c === j ? "strong" : "span");
        el.textContent = `${labels[c]} ${weights[i][c]}`;
        out.append(el);
      });
      out.append(tail);
    };

    const rows = labels.map((_, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "lesson-heat__row";
      b.tabIndex = i ? -1 : 0;
      b.style.cssText = `left:${left}%;top:${top + i * height}%;width:${width}%;height:${height}%`;
      b.setAttribute("aria-label", plain(i));
      b.addEventListener("focus", () => {
        focused = i;
        rows.forEach((r) => {
          r.tabIndex = r === b ? 0 : -1;
        });
        show(i);
      });
      b.addEventListener("blur", () => {
        focused = -1;
        show(-1);
      });
      b.addEventListener("click", () => b.focus());
      b.addEventListener("pointermove", (ev) => {
        const r = b.getBoundingClientRect();
        const x = left + ((ev.clientX - r.left) / r.width) * width; // % of the plot
        const j = Math.floor((x - cells[0]) / cells[1]);
        show(i, j >= 0 && j < labels.length ? j : -1);
      });
      b.addEventListener("pointerleave", () => show(focused));
      b.addEventListener("keydown", (ev) => {
        const to = { ArrowUp: i - 1, ArrowDown: i + 1, Home: 0, End: labels.length - 1 }[ev.key];
        if (to === undefined) return;
        ev.preventDefault();
        if (rows[to]) rows[to].focus();
      });
      plot.append(b);
      return b;
    });
    show(-1);
  });

  // ---------------------------------------------------------------------------------- scrolling by keyboard
  // What scrolls sideways (a listing, a wide table on a phone, a notebook's code) takes the keyboard's focus, so
  // that the arrow keys scroll it (WCAG 2.1.1). Material makes an overflowing code block focusable only where the
  // device can hover (on a phone it takes the attribute away again), its tables and the notebooks' code never.
  // An element this script made focusable is marked, and loses the focus stop when it no longer scrolls.
  const SCROLLERS = [".md-typeset pre > code", ".md-typeset__scrollwrap",
    ".jupyter-wrapper :is(.highlight-ipynb, .jp-OutputArea-output, pre)"].join(", ");
  const scrolls = (el) => {
    const style = getComputedStyle(el);
    const x = el.scrollWidth > el.clientWidth && /auto|scroll/.test(style.overflowX);
    return x || (el.scrollHeight > el.clientHeight && /auto|scroll/.test(style.overflowY));
  };
  const reach = () => {
    document.querySelectorAll(SCROLLERS).forEach((el) => {
      if (scrolls(el)) {
        if (el.getAttribute("tabindex") !== "0") {
          el.setAttribute("tabindex", "0");
          el.dataset.lessonScroll = "";
        }
      } else if ("lessonScroll" in el.dataset) {
        el.removeAttribute("tabindex");
        delete el.dataset.lessonScroll;
      }
    });
  };
  // ---------------------------------------------------------------------------------- the quiz's answers
  // A number as a reader writes it: 0.2, 0,2, ０．２, ٠٫٢, 1/5, 20 % (NFKC makes full-width forms ASCII); NaN if
  // it is none of these.
  const readNumber = (text) => {
    const t = text.normalize("NFKC").replace(/[\u0660-\u0669\u06f0-\u06f9]/g,
      (c) => String(c.charCodeAt(0) % 16)).replace(/\u066b/g, ".").replace(/\s+/g, "").replace(/,/g, ".");
    const number = "[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[-+]?\\d+)?";
    let m = t.match(new RegExp(`^(${number})%$`, "i"));
    if (m) return Number(m[1]) / 100;
    m = t.match(/^([-+]?\d+)\/(\d+)$/);
    if (m) return Number(m[2]) ? Number(m[1]) / Number(m[2]) : NaN;
    return new RegExp(`^${number}$`, "i").test(t) ? Number(t) : NaN;
  };
  // The reader's number against the run's (figures.py, _answer): right or wrong, then the explanation opens; an
  // answer it cannot read is said so; a changed answer takes the old verdict away.
  document.querySelectorAll("form.lesson-answer").forEach((form) => {
    const { value, within, shown, right, wrong, unread } = JSON.parse(form.dataset.answer);
    const input = form.querySelector("input");
    const result = form.querySelector(".lesson-answer__result");
    form.hidden = false;
    input.addEventListener("input", () => {
      result.textContent = "";
      delete result.dataset.right;
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!input.value.trim()) return input.focus();
      const typed = readNumber(input.value);
      if (Number.isNaN(typed)) {
        result.textContent = unread;
        delete result.dataset.right;
        return input.focus();
      }
      const ok = Math.abs(typed - value) <= within + 1e-9;
      result.textContent = fill(ok ? right : wrong, "value", shown);
      result.dataset.right = String(ok);
      const next = form.nextElementSibling;
      if (next && next.tagName === "DETAILS") next.open = true;
    });
  });

  // Material puts each code block's copy button in a <nav> of its own: a page with several listings would have as
  // many unnamed navigation landmarks (axe: landmark-unique), none of them a way around the site. role="none"
  // (allowed on nav) leaves the buttons as they are and takes the landmarks away.
  const tidy = () => {
    document.querySelectorAll("nav.md-code__nav:not([role])").forEach((nav) => nav.setAttribute("role", "none"));
    reach();
  };
  // Material adds the copy buttons, wraps the tables and sets or takes away code blocks' tabindex after this
  // script has run.
  new MutationObserver((records) => {
    if (records.some((r) => r.type === "attributes" || [...r.addedNodes].some((n) => n.nodeType === 1))) tidy();
  }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["tabindex"] });
  addEventListener("resize", reach);
  addEventListener("load", reach);
  tidy();
})();
