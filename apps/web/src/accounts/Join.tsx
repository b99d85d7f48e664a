import { validateRegistration, type RegistrationInput } from '@oasis198/game-rules';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router-dom';
import { errorMessage, getSession, isApiError, useRegister } from '../api';
import { NoticeDialog } from '../components/Dialog';
import { EmailField, Field } from '../components/Field';
import { Spinner } from '../components/Spinner';
import { T } from '../texts';
import styles from './Accounts.module.css';
import { NewPasswordFields } from './NewPasswordFields';

type FieldName = keyof RegistrationInput;
type Errors = Partial<Record<FieldName, string>>;
const FIELDS: readonly FieldName[] = ['name', 'email', 'password', 'confirmedPassword'];

export function Join() {
  const [arrivedLoggedIn] = useState(() => getSession() !== null);
  const navigate = useNavigate();
  const register = useRegister();
  const [form, setForm] = useState<Record<FieldName, string>>({
    name: '',
    email: '',
    password: '',
    confirmedPassword: '',
  });
  const [errors, setErrors] = useState<Errors>({});
  const [outcome, setOutcome] = useState<{ ok: true } | { ok: false; title: string; detail?: string } | null>(
    null,
  );

  if (arrivedLoggedIn) return <Navigate to="/profile" replace />;

  const set = (field: FieldName) => (event: React.ChangeEvent<HTMLInputElement>) =>
    setForm((f) => ({ ...f, [field]: event.target.value }));

  const onSubmit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    const found = validateRegistration(form);
    setErrors(found);
    const first = FIELDS.find((f) => found[f]);
    if (first) {
      event.currentTarget.querySelector<HTMLInputElement>(`[name="${first}"]`)?.focus();
      return;
    }
    register.mutate(form, {
      onSuccess: () => setOutcome({ ok: true }),
      onError: (error) => {
        if (isApiError(error) && error.status === 409) {
          setOutcome({ ok: false, title: T.alreadyExists });
          return;
        }
        if (isApiError(error) && error.details) {
          const fieldErrors: Errors = {};
          for (const f of FIELDS) if (error.details[f]) fieldErrors[f] = error.details[f];
          setErrors(fieldErrors);
        }
        setOutcome({ ok: false, title: errorMessage(error) });
      },
    });
  };

  return (
    <div className="page-narrow">
      <section className={`card ${styles.card}`} aria-labelledby="join-title">
        <h1 id="join-title">{T.joinTitle}</h1>
        <form noValidate onSubmit={onSubmit}>
          <Field
            name="name"
            label={T.username}
            autoComplete="username"
            value={form.name}
            onChange={set('name')}
            error={errors.name}
            maxLength={32}
          />
          <EmailField name="email" value={form.email} onChange={set('email')} error={errors.email} />
          <NewPasswordFields label={T.password} values={form} errors={errors} onChange={set} />
          <button type="submit" className="btn btn-big" disabled={register.isPending}>
            {register.isPending ? <Spinner inline label={T.submitting} /> : null}
            {T.createAccount}
          </button>
        </form>
        <p className={styles.links}>
          <span>
            {T.haveAccount} <Link to="/login">{T.login}</Link>
          </span>
        </p>
      </section>

      {outcome?.ok ? (
        <NoticeDialog title={T.registered} button={T.ok} onDismiss={() => navigate('/profile')} />
      ) : null}
      {outcome && !outcome.ok ? (
        <NoticeDialog
          role="alertdialog"
          title={outcome.title}
          button={T.tryAgain}
          onDismiss={() => setOutcome(null)}
        />
      ) : null}
    </div>
  );
}
