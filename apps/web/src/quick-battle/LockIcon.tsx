/** A padlock for rooms that need a passcode. */
export function LockIcon({ label }: { label: string }) {
  return (
    <svg viewBox="0 0 24 24" width="22" height="22" role="img" aria-label={label}>
      <title>{label}</title>
      <path
        fill="currentColor"
        d="M12 2a5 5 0 0 0-5 5v3H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-8a2 2 0 0 0-2-2h-1V7a5 5 0 0 0-5-5zm-3 5a3 3 0 0 1 6 0v3H9zm3 6a2 2 0 0 1 1 3.7V19h-2v-2.3A2 2 0 0 1 12 13z"
      />
    </svg>
  );
}
