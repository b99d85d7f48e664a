import { useEffect } from 'react';
import { useUi } from '../../app/ui-state';
import { startMusic } from '../../audio/music';
import { Dialog } from '../../components/Dialog';
import { Switch } from '../../components/Switch';
import { T } from '../../texts';

/** Plays the tune while music is on (muted by default; the flag persists). */
export function useGameMusic(active: boolean): void {
  const { ui } = useUi();
  const playing = active && !ui.musicMuted;
  useEffect(() => {
    if (!playing) return undefined;
    const music = startMusic();
    return () => music.stop();
  }, [playing]);
}

/** SPEC §2: Settings opens a GAME SETTINGS menu. */
export function SettingsMenu({ onClose }: { onClose: () => void }) {
  const { ui, dispatch } = useUi();
  return (
    <Dialog
      title={T.gameSettings}
      onClose={onClose}
      actions={
        <button type="button" className="btn" onClick={onClose}>
          {T.close}
        </button>
      }
    >
      <Switch
        label={T.music}
        checked={!ui.musicMuted}
        onChange={(on) => dispatch({ type: 'musicMuted', muted: !on })}
      />
    </Dialog>
  );
}
