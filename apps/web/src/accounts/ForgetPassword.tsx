import { validateEmail } from '@oasis198/game-rules';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Field } from '../components/Field';
import { T } from '../texts';
import styles from './Accounts.module.css';

/**
 * SPEC §2 and §4: on submit the player goes to /login, where 'Please, check your E-mail.' is shown
 * (the call itself: not shown).
 */
export function ForgetPassword() {
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);

  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    const found = validateEmail(email);
    setError(found);
    if (!found) void navigate('/login', { state: { checkEmail: true } });
  };

  return (
    <div className="page-narrow">
      <section className={`card ${styles.card}`} aria-labelledby="forget-title">
        <h1 id="forget-title">{T.forgetTitle}</h1>
        <p>{T.forgetIntro}</p>
        <form noValidate onSubmit={onSubmit}>
          <Field
            label={T.email}
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={error}
            maxLength={64}
          />
          <button type="submit" className="btn btn-big">
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
