import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ReauthDialogHost } from '../components/ReauthDialog';
import { UiProvider } from './ui-state';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 2_000, refetchOnWindowFocus: true },
      mutations: { retry: false },
    },
  });
}

/** The app's providers: server state (TanStack Query), interface state and the password dialog. */
export function AppProviders({ children, client }: { children: ReactNode; client?: QueryClient }) {
  const [queryClient] = useState(() => client ?? createQueryClient());
  return (
    <QueryClientProvider client={queryClient}>
      <UiProvider>
        {children}
        <ReauthDialogHost />
      </UiProvider>
    </QueryClientProvider>
  );
}
