import { validateConfirmedPassword, validatePassword } from '@oasis198/game-rules';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { api, errorMessage, isApiError } from '../api';
import { NoticeDialog } from '../components/Dialog';
import { Spinner } from '../components/Spinner';
import { T } from '../texts';
import styles from './Accounts.module.css';
import { NEW_PASSWORD_FIELDS, NewPasswordFields } from './NewPasswordFields';

type FieldName = (typeof NEW_PASSWORD_FIELDS)[number];
type Errors = Partial<Record<FieldName, string>>;

/**
 * /reset-password?token=…, the link of the mail (DECISIONS "Forgotten password"): the new password
 * and its confirmation with SPEC §5's rules; success says so with Ok to /login; a link the server
 * no longer knows (410) says it expired, with a way to ask for a new one.
 */
export function ResetPassword() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [form, setForm] = useState<Record<FieldName, string>>({ password: '', confirmedPassword: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [state, setState] = useState<'form' | 'sending' | 'done' | 'expired'>(token ? 'form' : 'expired');
  const [failure, setFailure] = useState<string | null>(null);

  const set = (field: FieldName) => (event: React.ChangeEvent<HTMLInputElement>) =>
    setForm((f) => ({ ...f, [field]: event.target.value }));

  const onSubmit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (state !== 'form') return;
    const found: Errors = {};
    const password = validatePassword(form.password);
    const confirmed = validateConfirmedPassword(form.password, form.confirmedPassword);
    if (password) found.password = password;
    if (confirmed) found.confirmedPassword = confirmed;
    setErrors(found);
    setFailure(null);
    const first = NEW_PASSWORD_FIELDS.find((f) => found[f]);
    if (first) {
      event.currentTarget.querySelector<HTMLInputElement>(`[name="${first}"]`)?.focus();
      return;
    }
    setState('sending');
    api
      .resetPassword({ token, ...form })
      .then(() => setState('done'))
      .catch((error: unknown) => {
        if (isApiError(error) && error.status === 410) return setState('expired');
        setState('form');
        if (isApiError(error) && error.status === 400) {
          const details = error.details ?? {};
          setErrors({
            password: details['password'] ?? (details['confirmedPassword'] ? undefined : error.message),
            confirmedPassword: details['confirmedPassword'],
          });
          return;
        }
        setFailure(errorMessage(error));
      });
  };

  if (state === 'expired') {
    return (
      <div className="page-narrow">
        <section className={`card ${styles.card}`} aria-labelledby="reset-title">
          <h1 id="reset-title">{T.resetTitle}</h1>
          <p role="alert">{T.resetLinkExpired}</p>
          <p className={styles.links}>
            <Link to="/forget-password">{T.askAgain}</Link>
          </p>
        </section>
      </div>
    );
  }

  return (
    <div className="page-narrow">
      <section className={`card ${styles.card}`} aria-labelledby="reset-title">
        <h1 id="reset-title">{T.resetTitle}</h1>
        <p>{T.resetIntro}</p>
        <form noValidate onSubmit={onSubmit}>
          <NewPasswordFields label={T.newPassword} values={form} errors={errors} onChange={set} />
          {failure ? <p role="alert">{failure}</p> : null}
          <button type="submit" className="btn btn-big" disabled={state === 'sending'}>
            {state === 'sending' ? <Spinner inline label={T.submitting} /> : null}
            {T.setPassword}
          </button>
        </form>
      </section>
      {state === 'done' ? (
        <NoticeDialog title={T.passwordChanged} button={T.ok} onDismiss={() => navigate('/login')} />
      ) : null}
    </div>
  );
}
