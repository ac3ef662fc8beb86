/**
 * Where the token lives: sessionStorage, so it lasts for this browser tab
 * only and is gone when the tab closes (never localStorage, never a cookie).
 */
const KEY = 'sluice.token';

export function savedToken(): string | null {
  try {
    return window.sessionStorage.getItem(KEY);
  } catch {
    return null; // storage disabled: the person signs in again per page load
  }
}

export function saveToken(token: string | null): void {
  try {
    if (token === null) window.sessionStorage.removeItem(KEY);
    else window.sessionStorage.setItem(KEY, token);
  } catch {
    // Storage disabled: the token still works for this page.
  }
}
