/** The signed-in user as pages and the API see it (no secrets). */
export interface SessionUser {
  id: string;
  email: string;
  username: string | null;
}
