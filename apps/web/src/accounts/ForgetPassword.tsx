import { validateEmail } from '@oasis198/game-rules';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { api, errorMessage, isApiError } from '../api';
import { EmailField } from '../components/Field';
import { Spinner } from '../components/Spinner';
import { T } from '../texts';
import styles from './Accounts.module.css';

/**
 * SPEC §2 and §4: on submit the player goes to /login, where 'Please, check your E-mail.' is shown,
 * whether or not the e-mail has an account (DECISIONS "Forgotten password": the server mails the
 * link). Only a refusal that is not about the account stops here: too many requests, an outage.
 */
export function ForgetPassword() {
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    const found = validateEmail(email);
    setError(found);
    if (found || sending) return;
    setSending(true);
    api
      .forgotPassword({ email })
      .then(() => navigate('/login', { state: { checkEmail: true } }))
      .catch((failure: unknown) => {
        setSending(false);
        setError(
          isApiError(failure) && failure.details?.['email']
            ? failure.details['email']
            : errorMessage(failure),
        );
      });
  };

  return (
    <div className="page-narrow">
      <section className={`card ${styles.card}`} aria-labelledby="forget-title">
        <h1 id="forget-title">{T.forgetTitle}</h1>
        <p>{T.forgetIntro}</p>
        <form noValidate onSubmit={onSubmit}>
          <EmailField value={email} onChange={(e) => setEmail(e.target.value)} error={error} />
          <button type="submit" className="btn btn-big" disabled={sending}>
            {sending ? <Spinner inline label={T.submitting} /> : null}
            {T.send}
          </button>
        </form>
        <p className={styles.links}>
          <Link to="/login">{T.login}</Link>
        </p>
      </section>
    </div>
  );
}
