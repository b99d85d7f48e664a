/**
 * A small desert tune generated with WebAudio (no files, no network): a pentatonic loop on a
 * soft triangle wave. Silent where WebAudio does not exist.
 */
const NOTES = [220, 261.63, 293.66, 329.63, 392, 329.63, 293.66, 261.63, 220, 196, 220, 293.66];
const STEP_MS = 420;

type AudioCtor = typeof AudioContext;

function audioContextClass(): AudioCtor | undefined {
  if (typeof window === 'undefined') return undefined;
  return (window.AudioContext ??
    (window as unknown as { webkitAudioContext?: AudioCtor }).webkitAudioContext) as AudioCtor | undefined;
}

export interface Music {
  stop: () => void;
}

export function startMusic(): Music {
  const Ctor = audioContextClass();
  if (!Ctor) return { stop: () => undefined };
  const context = new Ctor();
  const master = context.createGain();
  master.gain.value = 0.06;
  master.connect(context.destination);
  let step = 0;

  const play = (): void => {
    if (context.state === 'suspended') void context.resume();
    const frequency = NOTES[step % NOTES.length] as number;
    step += 1;
    const now = context.currentTime;
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.type = 'triangle';
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(0, now);
    gain.gain.linearRampToValueAtTime(1, now + 0.03);
    gain.gain.exponentialRampToValueAtTime(0.001, now + STEP_MS / 1000);
    osc.connect(gain);
    gain.connect(master);
    osc.start(now);
    osc.stop(now + STEP_MS / 1000 + 0.05);
  };

  play();
  const timer = setInterval(play, STEP_MS);
  return {
    stop: () => {
      clearInterval(timer);
      void context.close();
    },
  };
}
