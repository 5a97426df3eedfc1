// A few short sounds, made on the spot with WebAudio (nothing to download): a card landing,
// chips going in, your turn, a win, a refusal. Off with the mute switch (remembered on this
// device). Browsers allow sound only after the first tap, so the audio starts then.

const KEY = "svara:muted";
let context = null;
export const played = []; // what was played, newest last (tests read window.svaraSounds)
window.svaraSounds = played;

export function muted() { return localStorage.getItem(KEY) === "1"; }

export function setMuted(on) {
  localStorage.setItem(KEY, on ? "1" : "0");
}

function audio() {
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

// Start the audio on the first tap anywhere (a browser rule), then stop listening.
document.addEventListener("pointerdown", () => { if (!muted()) audio(); }, { once: true });

function tone(ctx, { freq, start = 0, length = 0.12, type = "sine", gain = 0.18, slide = 0 }) {
  const at = ctx.currentTime + start;
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, at + length);
  amp.gain.setValueAtTime(0.0001, at);
  amp.gain.exponentialRampToValueAtTime(gain, at + 0.008);
  amp.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(amp).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

function noise(ctx, { start = 0, length = 0.05, gain = 0.12, freq = 3000 }) {
  const at = ctx.currentTime + start;
  const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * length), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length);
  const source = ctx.createBufferSource();
  const filter = ctx.createBiquadFilter();
  const amp = ctx.createGain();
  source.buffer = buffer;
  filter.type = "bandpass";
  filter.frequency.value = freq;
  amp.gain.value = gain;
  source.connect(filter).connect(amp).connect(ctx.destination);
  source.start(at);
}

const SOUNDS = {
  deal: (ctx) => { for (let i = 0; i < 3; i++) noise(ctx, { start: i * 0.07, freq: 2500 }); },
  chip: (ctx) => {
    tone(ctx, { freq: 2400, length: 0.06, type: "triangle", gain: 0.12 });
    tone(ctx, { freq: 3100, start: 0.05, length: 0.07, type: "triangle", gain: 0.1 });
  },
  turn: (ctx) => {
    tone(ctx, { freq: 660, length: 0.12, gain: 0.15 });
    tone(ctx, { freq: 880, start: 0.11, length: 0.16, gain: 0.15 });
  },
  win: (ctx) => {
    [523, 659, 784, 1047].forEach((freq, i) => tone(ctx, { freq, start: i * 0.09, length: 0.22,
      type: "triangle", gain: 0.14 }));
  },
  error: (ctx) => tone(ctx, { freq: 220, length: 0.22, type: "square", gain: 0.06, slide: 0.7 }),
};

export function play(name) {
  if (muted() || !SOUNDS[name]) return;
  played.push(name);
  const ctx = audio();
  if (!ctx || ctx.state !== "running") return;
  try { SOUNDS[name](ctx); } catch { /* a sound is never worth an error */ }
}
