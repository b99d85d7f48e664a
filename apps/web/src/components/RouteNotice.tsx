import { useLocation } from 'react-router-dom';

/** The one-line reason a screen was sent here with (navigate's state.notice), if any. */
export function RouteNotice() {
  const notice = (useLocation().state as { notice?: unknown } | null)?.notice;
  if (typeof notice !== 'string') return null;
  return (
    <p role="status" className="notice">
      {notice}
    </p>
  );
}
