// A player's account from the inside: rename, log out, log in, delete.
import { confirmOk, expectProfile, newPlayer, openProfile, submitLogin } from './support/accounts';
import { expect, shot, test } from './support/scenario';

test('8. Account flows: rename on the profile, log out through the dialog, log in again, delete the account', async ({
  browser,
}) => {
  const { person: layla, account } = await newPlayer(browser, 'Layla');
  const { page } = layla;
  await expectProfile(page, account.name, (shown) => expect(shown.playerName).toBe(account.name));

  // Rename: Edit panel, the Edit Username choice, SPEC's success message.
  const renamed = `Nomad${account.name.slice(-6)}`;
  await page.getByRole('tab', { name: 'Edit' }).click();
  await page.getByRole('radio', { name: 'Edit Username' }).check();
  await page.getByLabel('New username').fill(renamed);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: 'Username changed successfully' }).waitFor();
  await page.getByRole('heading', { level: 1, name: `Profile · ${renamed}` }).waitFor();
  await shot(layla, 'renamed');
  await expectProfile(page, renamed, (shown) => expect(shown.playerName).toBe(renamed));

  // Log out: Cancel keeps the session, Exit ends it.
  await page.getByRole('button', { name: 'Log out' }).click();
  const logoutDialog = page.getByRole('dialog', { name: 'Are you sure you want to log out?' });
  await logoutDialog.waitFor();
  await shot(layla, 'logout-dialog');
  await logoutDialog.getByRole('button', { name: 'Cancel' }).click();
  await logoutDialog.waitFor({ state: 'hidden' });
  await page.getByRole('button', { name: 'Log out' }).click();
  await logoutDialog.getByRole('button', { name: 'Exit' }).click();
  await page.getByRole('dialog', { name: 'You have successfully logged out!' }).waitFor();
  await shot(layla, 'logged-out');
  await confirmOk(page);
  expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
  await page.goto('/profile');
  await page.waitForURL('**/login');

  // Log in again, under the new name.
  await submitLogin(page, account);
  await page.getByRole('dialog', { name: 'You have successfully logged in' }).waitFor();
  await confirmOk(page);
  await openProfile(page, renamed);
  await shot(layla, 'logged-in-again');

  // Delete the account through its dialog.
  await page.getByRole('tab', { name: 'Edit' }).click();
  await page.getByRole('button', { name: 'Delete account' }).click();
  const deleteDialog = page.getByRole('alertdialog', { name: 'Confirm to delete account?' });
  await deleteDialog.waitFor();
  await shot(layla, 'delete-dialog');
  await deleteDialog.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'You have successfully deleted your account!' }).waitFor();
  await shot(layla, 'deleted');
  await confirmOk(page);

  // The account is gone: its credentials no longer log in.
  await submitLogin(page, account);
  await page.getByRole('alertdialog', { name: 'You have failed to log in, try again' }).waitFor();
  await shot(layla, 'login-refused');
  await layla.leave();
});
