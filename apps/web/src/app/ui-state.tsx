import { createContext, useContext, useEffect, useMemo, useReducer, type ReactNode } from 'react';
import { T } from '../texts';

/** SPEC §3 "Interface state": what the app remembers about its own screens. */
export type MenuTab = (typeof T.menuTabs)[keyof typeof T.menuTabs];
export type AvatarTab = 'coin' | 'edit';
export type EditType = 'username' | 'email' | 'password';

export interface UiState {
  menuOpen: boolean;
  menuTab: MenuTab;
  logoutWindow: boolean;
  deleteWindow: boolean;
  avatarTab: AvatarTab;
  editType: EditType | null;
  editCompleted: boolean;
  helpType: string;
  musicMuted: boolean;
}

export type UiAction =
  | { type: 'toggleMenu' }
  | { type: 'closeMenu' }
  | { type: 'menuTab'; tab: MenuTab }
  | { type: 'logoutWindow'; open: boolean }
  | { type: 'deleteWindow'; open: boolean }
  | { type: 'avatarTab'; tab: AvatarTab }
  | { type: 'editType'; editType: EditType | null }
  | { type: 'editCompleted'; done: boolean }
  | { type: 'helpType'; helpType: string }
  | { type: 'musicMuted'; muted: boolean };

export const MUSIC_MUTED_KEY = 'musicMuted';

function readMuted(): boolean {
  try {
    return window.localStorage.getItem(MUSIC_MUTED_KEY) !== 'false';
  } catch {
    return true;
  }
}

export function initialUiState(): UiState {
  return {
    menuOpen: false,
    menuTab: T.menuTabs.howToPlay,
    logoutWindow: false,
    deleteWindow: false,
    avatarTab: 'coin',
    editType: null,
    editCompleted: false,
    helpType: 'plus',
    musicMuted: readMuted(),
  };
}

/** SPEC §4 "Menu button": closing the menu also closes the profile's windows and resets its tabs. */
function closeMenu(state: UiState): UiState {
  return {
    ...state,
    menuOpen: false,
    logoutWindow: false,
    deleteWindow: false,
    avatarTab: 'coin',
    editType: null,
    editCompleted: false,
  };
}

export function uiReducer(state: UiState, action: UiAction): UiState {
  switch (action.type) {
    case 'toggleMenu':
      return state.menuOpen ? closeMenu(state) : { ...state, menuOpen: true };
    case 'closeMenu':
      return state.menuOpen ? closeMenu(state) : state;
    case 'menuTab':
      return { ...state, menuTab: action.tab };
    case 'logoutWindow':
      return { ...state, logoutWindow: action.open };
    case 'deleteWindow':
      return { ...state, deleteWindow: action.open };
    case 'avatarTab':
      return { ...state, avatarTab: action.tab };
    case 'editType':
      return { ...state, editType: action.editType, editCompleted: false };
    case 'editCompleted':
      return { ...state, editCompleted: action.done };
    case 'helpType':
      return { ...state, helpType: action.helpType };
    case 'musicMuted':
      return { ...state, musicMuted: action.muted };
  }
}

interface UiContextValue {
  ui: UiState;
  dispatch: (action: UiAction) => void;
}

const UiContext = createContext<UiContextValue | null>(null);

export function UiProvider({ children }: { children: ReactNode }) {
  const [ui, dispatch] = useReducer(uiReducer, undefined, initialUiState);
  useEffect(() => {
    try {
      window.localStorage.setItem(MUSIC_MUTED_KEY, String(ui.musicMuted));
    } catch {
      // Private mode: the flag lasts for this visit only.
    }
  }, [ui.musicMuted]);
  const value = useMemo(() => ({ ui, dispatch }), [ui]);
  return <UiContext.Provider value={value}>{children}</UiContext.Provider>;
}

export function useUi(): UiContextValue {
  const value = useContext(UiContext);
  if (!value) throw new Error('useUi must be used inside <UiProvider>');
  return value;
}
