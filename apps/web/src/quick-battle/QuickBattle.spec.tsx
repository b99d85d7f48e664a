import { screen } from '@testing-library/react';
import { fakeApi } from '../testing/fake-network';
import { renderApp } from '../testing/render';

describe('/quick-battle', () => {
  it('offers the room list and room creation, and tells visitors they need an account to play', async () => {
    fakeApi();
    renderApp('/quick-battle');
    expect(await screen.findByRole('link', { name: 'Find a Room' })).toHaveAttribute(
      'href',
      '/quick-battle/rooms',
    );
    expect(screen.getByRole('link', { name: 'Create a Room' })).toHaveAttribute(
      'href',
      '/quick-battle/create',
    );
    expect(screen.getByText('Visitors can watch any game. You need an account to play.')).toBeInTheDocument();
  });
});
