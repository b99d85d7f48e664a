import { render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { ErrorView } from './ErrorView';

function Broken(): never {
  throw new Error('The sand got into the gears.');
}

describe('router error view', () => {
  it("is titled 'Unexpected Application Error!'", async () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const router = createMemoryRouter([{ path: '/', element: <Broken />, errorElement: <ErrorView /> }]);
      render(<RouterProvider router={router} />);
      expect(
        await screen.findByRole('heading', { name: 'Unexpected Application Error!' }),
      ).toBeInTheDocument();
      expect(screen.getByText('The sand got into the gears.')).toBeInTheDocument();
      expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
    } finally {
      jest.restoreAllMocks();
    }
  });
});
