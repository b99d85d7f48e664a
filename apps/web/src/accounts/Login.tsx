import { validateLogin } from '@oasis198/game-rules';
import { useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router-dom';
import { errorMessage, getSession, useLogin } from '../api';
import { NoticeDialog } from '../components/Dialog';
import { EmailField, PasswordField } from '../components/Field';
import { Spinner } from '../components/Spinner';
import { T } from '../texts';
import styles from './Accounts.module.css';

type Errors = Partial<Record<'email' | 'password', string>>;

export function Login() {
  // A user who arrives logged in goes to the profile (SPEC §4); one who logs in here sees the dialog.
  const [arrivedLoggedIn] = useState(() => getSession() !== null);
  const navigate = useNavigate();
  const location = useLocation();
  // Sent here by /forget-password (SPEC §4): 'Please, check your E-mail.' until Ok.
  const [checkEmail, setCheckEmail] = useState(
    () => (location.state as { checkEmail?: unknown } | null)?.checkEmail === true,
  );
  const login = useLogin();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [outcome, setOutcome] = useState<{ ok: true } | { ok: false; message: string } | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  if (arrivedLoggedIn) return <Navigate to="/profile" replace />;

  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    const found = validateLogin({ email, password });
    setErrors(found);
    if (found.email) return emailRef.current?.focus();
    if (found.password) return passwordRef.current?.focus();
    login.mutate(
      { email, password },
      {
        onSuccess: () => setOutcome({ ok: true }),
        onError: (error) => setOutcome({ ok: false, message: errorMessage(error) }),
      },
    );
  };

  return (
    <div className="page-narrow">
      <section className={`card ${styles.card}`} aria-labelledby="login-title">
        <h1 id="login-title">{T.loginTitle}</h1>
        <form noValidate onSubmit={onSubmit}>
          <EmailField
            ref={emailRef}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={errors.email}
          />
          <PasswordField
            ref={passwordRef}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={errors.password}
          />
          <button type="submit" className="btn btn-big" disabled={login.isPending}>
            {login.isPending ? <Spinner inline label={T.submitting} /> : null}
            {T.login}
          </button>
        </form>
        <p className={styles.links}>
          <Link to="/forget-password">{T.forgotPassword}</Link>
          <span>
            {T.noAccount} <Link to="/join">{T.join}</Link>
          </span>
        </p>
      </section>

      {checkEmail ? (
        <NoticeDialog title={T.checkEmail} button={T.ok} onDismiss={() => setCheckEmail(false)} />
      ) : null}
      {outcome?.ok ? <NoticeDialog title={T.loggedIn} button={T.ok} onDismiss={() => navigate('/')} /> : null}
      {outcome && !outcome.ok ? (
        <NoticeDialog
          role="alertdialog"
          title={T.loginFailed}
          button={T.tryAgain}
          onDismiss={() => setOutcome(null)}
        >
          <p>{outcome.message}</p>
        </NoticeDialog>
      ) : null}
    </div>
  );
}
