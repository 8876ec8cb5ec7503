/** Opening Stripe's billing portal, shared by the billing page and the Edit Profile card. */
import { api, errorMessage } from "../lib/api";
import { notify } from "../lib/toast";

export const PORTAL_ERROR = "Failed to open billing portal. Please try again.";

/** Asks the server for a portal session and goes there; on failure an error toast. Resolves false on failure. */
export async function openBillingPortal(): Promise<boolean> {
  try {
    const { url } = await api.post<{ url: string }>("/api/create-portal-session");
    window.location.assign(url);
    return true;
  } catch (error) {
    notify.error(errorMessage(error, PORTAL_ERROR));
    return false;
  }
}
