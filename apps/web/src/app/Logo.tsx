import { useId } from 'react';

/** The palm-and-dune mark of Oasis 198. */
export function Logo({ className, title }: { className?: string; title?: string }) {
  const titleId = useId();
  return (
    <svg
      className={className}
      viewBox="0 0 64 64"
      role={title ? 'img' : undefined}
      aria-labelledby={title ? titleId : undefined}
      aria-hidden={title ? undefined : true}
      focusable="false"
    >
      {title ? <title id={titleId}>{title}</title> : null}
      <circle cx="32" cy="32" r="30" fill="#f2b134" />
      <path d="M4 42c9-6 19-8 28-6s17 2 28-4v6a30 30 0 0 1-56 6z" fill="#b4532a" />
      <ellipse cx="32" cy="47" rx="13" ry="4.5" fill="#1fa39a" />
      <path d="M32 45V23" stroke="#6b4423" strokeWidth="3" strokeLinecap="round" />
      <path
        d="M32 23c-6-6-14-4-16 0 6-2 10-1 16 0zm0 0c6-6 14-4 16 0-6-2-10-1-16 0zm0 0c-2-7-8-10-12-8 5 1 8 4 12 8zm0 0c2-7 8-10 12-8-5 1-8 4-12 8z"
        fill="#2f7d4f"
      />
    </svg>
  );
}
