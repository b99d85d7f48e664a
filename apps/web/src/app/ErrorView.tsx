import { isRouteErrorResponse, useRouteError } from 'react-router-dom';
import { T } from '../texts';
import styles from './ErrorView.module.css';

/** The router's default error view (SPEC §2). The link reloads the app, so a broken state is left behind. */
export function ErrorView() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : null;
  return (
    <div className={styles.wrap} role="alert">
      <h1>{T.unexpectedError}</h1>
      <p>{T.unexpectedErrorHint}</p>
      {detail ? <pre className={styles.detail}>{detail}</pre> : null}
      <a className="btn" href="/">
        {T.backHome}
      </a>
    </div>
  );
}
