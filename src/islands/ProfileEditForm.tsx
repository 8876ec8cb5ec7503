import { useStore } from "@nanostores/react";
import { useEffect, useId, useRef, useState } from "react";
import Field from "../components/Field";
import { MESSAGES, PROFILE_MESSAGES } from "../lib/account-messages";
import { ApiError, api, errorMessage } from "../lib/api";
import { BIO_MAX, PROFILE_IMAGE_MAX_BYTES, SOCIAL_LINKS, type SocialField } from "../lib/constants";
import { SHOW_AFFILIATE_LINKS_LABEL, SHOW_NOTES_LABEL } from "../lib/insights";
import { notify } from "../lib/toast";
import type { CurrentUser, ImageUploadAnswer } from "../lib/types";
import { profileUpdateSchema } from "../lib/validation";
import { $user, refreshUser, seedUser } from "../stores/user";
import Avatar from "./Avatar";

/** Why a free member's premium switches are off. */
const PREMIUM_SWITCH_NOTE =
  "Premium only: notes and affiliate links show on your public page while you are a Premium member.";

type FieldName = "username" | "bio" | SocialField;
type Values = Record<FieldName, string>;

const valuesOf = (user: CurrentUser): Values => ({
  username: user.username ?? "",
  bio: user.bio ?? "",
  ...(Object.fromEntries(SOCIAL_LINKS.map((l) => [l.field, user[l.field] ?? ""])) as Record<SocialField, string>),
});

type Switch = "showNotes" | "showAffiliateLinks" | "showSchedule";
const switchesOf = (user: CurrentUser): Record<Switch, boolean> => ({
  showNotes: user.showNotes,
  showAffiliateLinks: user.showAffiliateLinks,
  showSchedule: user.showSchedule,
});

const SWITCHES: { field: Switch; label: string; premium: boolean; hint?: string }[] = [
  { field: "showNotes", label: SHOW_NOTES_LABEL, premium: true },
  { field: "showAffiliateLinks", label: SHOW_AFFILIATE_LINKS_LABEL, premium: true },
  {
    field: "showSchedule",
    label: "Show when I take them on my public profile",
    premium: false,
    hint: "Your times of day and amounts only; what you have taken stays private.",
  },
];

const PLACEHOLDERS: Record<SocialField, string> = {
  instagramUrl: "https://instagram.com/yourname",
  twitterUrl: "https://x.com/yourname",
  facebookUrl: "https://facebook.com/yourname",
  youtubeUrl: "https://youtube.com/@yourname",
  tiktokUrl: "https://tiktok.com/@yourname",
  linkedinUrl: "https://linkedin.com/in/yourname",
  etsyUrl: "https://etsy.com/shop/yourshop",
  websiteUrl: "https://yourwebsite.com",
};

/**
 * Edit Profile: avatar upload with a local preview (saved at once: it is a file), then username,
 * bio, the eight social links and the public page's switches, all saved by Update Profile.
 */
export default function ProfileEditForm({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const [values, setValues] = useState<Values>(() => valuesOf(initialUser));
  // Issue 14: what the public page shows of a premium member's supplements.
  const [switches, setSwitches] = useState(() => switchesOf(initialUser));
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [saving, setSaving] = useState(false);
  const [preview, setPreview] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const id = useId();

  useEffect(() => () => void (preview && URL.revokeObjectURL(preview)), [preview]);

  const set = (field: FieldName) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    setValues((v) => ({ ...v, [field]: e.target.value }));
    setErrors((er) => ({ ...er, [field]: undefined }));
  };

  async function onFile(event: React.ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (!file) return;
    if (!file.type.startsWith("image/")) {
      notify.error(MESSAGES.imageType);
      return;
    }
    if (file.size > PROFILE_IMAGE_MAX_BYTES) {
      notify.error(MESSAGES.imageSize);
      return;
    }
    const local = URL.createObjectURL(file);
    setPreview(local);
    setUploading(true);
    try {
      const form = new FormData();
      form.append("profileImage", file);
      const { imageUrl } = await api.post<ImageUploadAnswer>("/api/upload/profile-image", form);
      await api.put("/api/profile", { profileImageUrl: imageUrl });
      await refreshUser();
      notify.success(PROFILE_MESSAGES.imageUpdated);
    } catch (error) {
      notify.error(errorMessage(error, PROFILE_MESSAGES.imageUploadFailed));
    } finally {
      setPreview(null);
      setUploading(false);
    }
  }

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    const parsed = profileUpdateSchema.safeParse(values);
    if (!parsed.success) {
      const found: Partial<Record<FieldName, string>> = {};
      for (const issue of parsed.error.issues) found[issue.path[0] as FieldName] ??= issue.message;
      setErrors(found);
      return;
    }
    setSaving(true);
    try {
      // A free member's premium switches are shown off and disabled: they are not sent.
      const sent = user.isPremium ? switches : { showSchedule: switches.showSchedule };
      await api.put("/api/profile", { ...parsed.data, ...sent });
      const fresh = await refreshUser();
      if (fresh) {
        setValues(valuesOf(fresh));
        setSwitches(switchesOf(fresh));
      }
      notify.success(PROFILE_MESSAGES.updated);
    } catch (error) {
      if (error instanceof ApiError && error.errors) {
        const found: Partial<Record<FieldName, string>> = {};
        for (const [key, list] of Object.entries(error.errors)) found[key as FieldName] = list[0];
        setErrors(found);
      }
      notify.error(errorMessage(error, PROFILE_MESSAGES.updateFailed));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate className="card space-y-8 p-6 sm:p-8">
      <section aria-labelledby={`${id}-photo`} className="flex flex-col items-start gap-4 sm:flex-row sm:items-center">
        {preview ? (
          <img src={preview} alt="Your new avatar, not yet saved" className="size-24 rounded-full object-cover" />
        ) : (
          <Avatar user={user} size="xl" />
        )}
        <div>
          <h2 id={`${id}-photo`} className="font-semibold text-slate-900">
            Profile Photo
          </h2>
          <p className="mt-1 text-sm text-slate-600">JPEG, PNG, WebP, GIF or AVIF, up to 5MB.</p>
          <input
            ref={fileInput}
            id={`${id}-file`}
            type="file"
            accept="image/*"
            className="sr-only"
            onChange={onFile}
            aria-label="Upload profile photo"
          />
          <button
            type="button"
            className="btn btn-outline btn-sm mt-3"
            onClick={() => fileInput.current?.click()}
            disabled={uploading}
          >
            {uploading ? "Uploading..." : "Change Photo"}
          </button>
        </div>
      </section>

      <section className="space-y-5">
        <Field
          id={`${id}-username`}
          label="Username"
          autoCapitalize="none"
          spellCheck={false}
          value={values.username}
          onChange={set("username")}
          hint={<span className="user-text">Your public profile: /{values.username.trim() || "name"}</span>}
          error={errors.username}
        />
        <Field
          id={`${id}-bio`}
          label="Bio"
          multiline
          className="min-h-28"
          placeholder="Tell people about yourself and your health goals"
          value={values.bio}
          onChange={set("bio")}
          describedBy={`${id}-bio-count`}
          after={
            <p
              id={`${id}-bio-count`}
              className={`mt-1.5 text-right text-sm ${values.bio.length > BIO_MAX ? "text-red-700" : "text-slate-600"}`}
            >
              {values.bio.length}/{BIO_MAX}
            </p>
          }
          error={errors.bio}
        />
      </section>

      <fieldset>
        <legend className="font-semibold text-slate-900">Social Links</legend>
        <p className="mt-1 text-sm text-slate-600">
          A full address, or for Instagram, X, TikTok and YouTube just your @handle.
        </p>
        <div className="mt-4 grid gap-5 sm:grid-cols-2">
          {SOCIAL_LINKS.map((link) => (
            <Field
              key={link.field}
              id={`${id}-${link.field}`}
              label={link.label}
              type="text"
              inputMode="url"
              autoCapitalize="none"
              autoCorrect="off"
              spellCheck={false}
              placeholder={PLACEHOLDERS[link.field]}
              value={values[link.field]}
              onChange={set(link.field)}
              error={errors[link.field]}
            />
          ))}
        </div>
      </fieldset>

      <fieldset aria-describedby={`${id}-public-hint`}>
        <legend className="font-semibold text-slate-900">Public Profile</legend>
        <p id={`${id}-public-hint`} className="mt-1 text-sm text-slate-600">
          What visitors of your public page see of your supplements.
        </p>
        {!user.isPremium && (
          <p id={`${id}-premium-note`} className="mt-2 rounded-lg bg-premium-50 px-3 py-2 text-sm text-premium-800">
            {PREMIUM_SWITCH_NOTE}
          </p>
        )}
        <div className="mt-4 space-y-4">
          {SWITCHES.map(({ field, label, premium, hint }) => {
            const locked = premium && !user.isPremium;
            const noteId = locked ? `${id}-premium-note` : hint ? `${id}-${field}-note` : undefined;
            return (
              <div key={field}>
                <label
                  className={`flex items-center justify-between gap-4 ${locked ? "cursor-not-allowed" : "cursor-pointer"}`}
                >
                  <span className={`min-w-0 text-sm ${locked ? "text-slate-600" : "text-slate-800"}`}>{label}</span>
                  <input
                    type="checkbox"
                    role="switch"
                    aria-checked={locked ? false : switches[field]}
                    checked={locked ? false : switches[field]}
                    disabled={locked}
                    aria-describedby={noteId}
                    onChange={(e) => setSwitches((v) => ({ ...v, [field]: e.target.checked }))}
                    className="peer sr-only"
                  />
                  <span
                    aria-hidden="true"
                    className="relative inline-flex h-6 w-11 shrink-0 rounded-full bg-slate-400 transition-colors peer-checked:bg-brand-700 peer-disabled:bg-slate-200 peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-brand-600 after:absolute after:top-0.5 after:left-0.5 after:size-5 after:rounded-full after:bg-white after:shadow after:transition-transform peer-checked:after:translate-x-5"
                  />
                </label>
                {hint && (
                  <p id={noteId} className="mt-1 text-sm text-slate-600">
                    {hint}
                  </p>
                )}
              </div>
            );
          })}
        </div>
      </fieldset>

      <div className="flex justify-end border-t border-slate-200 pt-6">
        <button type="submit" className="btn btn-primary w-full sm:w-auto" disabled={saving}>
          {saving ? "Updating..." : "Update Profile"}
        </button>
      </div>
    </form>
  );
}
