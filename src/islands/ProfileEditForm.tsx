import { useStore } from "@nanostores/react";
import { useEffect, useId, useRef, useState } from "react";
import { ApiError, api, errorMessage } from "../lib/api";
import { BIO_MAX, PROFILE_IMAGE_MAX_BYTES, SOCIAL_LINKS, type SocialField } from "../lib/constants";
import { SHOW_AFFILIATE_LINKS_LABEL, SHOW_NOTES_LABEL } from "../lib/insights";
import { MESSAGES, PROFILE_MESSAGES } from "../lib/messages";
import { notify } from "../lib/toast";
import type { CurrentUser, ImageUploadAnswer } from "../lib/types";
import { profileUpdateSchema } from "../lib/validation";
import { $user, refreshUser, seedUser } from "../stores/user";
import Avatar from "./Avatar";

type Field = "username" | "bio" | SocialField;
type Values = Record<Field, string>;

const valuesOf = (user: CurrentUser): Values => ({
  username: user.username ?? "",
  bio: user.bio ?? "",
  ...(Object.fromEntries(SOCIAL_LINKS.map((l) => [l.field, user[l.field] ?? ""])) as Record<SocialField, string>),
});

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

/** Edit Profile: avatar upload with a local preview, username, bio and the eight social links. */
export default function ProfileEditForm({ user: initialUser }: { user: CurrentUser }) {
  seedUser(initialUser);
  const user = useStore($user) ?? initialUser;
  const [values, setValues] = useState<Values>(() => valuesOf(initialUser));
  // Issue 14: what the public page shows of a premium member's supplements.
  const [switches, setSwitches] = useState(() => ({
    showNotes: initialUser.showNotes,
    showAffiliateLinks: initialUser.showAffiliateLinks,
  }));
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [saving, setSaving] = useState(false);
  const [preview, setPreview] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const id = useId();

  useEffect(() => () => void (preview && URL.revokeObjectURL(preview)), [preview]);

  const set = (field: Field) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
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
      const found: Partial<Record<Field, string>> = {};
      for (const issue of parsed.error.issues) found[issue.path[0] as Field] ??= issue.message;
      setErrors(found);
      return;
    }
    setSaving(true);
    try {
      await api.put("/api/profile", { ...parsed.data, ...switches });
      const fresh = await refreshUser();
      if (fresh) {
        setValues(valuesOf(fresh));
        setSwitches({ showNotes: fresh.showNotes, showAffiliateLinks: fresh.showAffiliateLinks });
      }
      notify.success(PROFILE_MESSAGES.updated);
    } catch (error) {
      if (error instanceof ApiError && error.errors) {
        const found: Partial<Record<Field, string>> = {};
        for (const [key, list] of Object.entries(error.errors)) found[key as Field] = list[0];
        setErrors(found);
      }
      notify.error(errorMessage(error, PROFILE_MESSAGES.updateFailed));
    } finally {
      setSaving(false);
    }
  }

  const describedBy = (field: Field, hint?: string) =>
    [hint, errors[field] ? `${id}-${field}-error` : undefined].filter(Boolean).join(" ") || undefined;
  const errorText = (field: Field) =>
    errors[field] ? (
      <p id={`${id}-${field}-error`} className="field-error">
        {errors[field]}
      </p>
    ) : null;

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
        <div>
          <label htmlFor={`${id}-username`} className="field-label">
            Username
          </label>
          <input
            id={`${id}-username`}
            className="field-input"
            autoCapitalize="none"
            spellCheck={false}
            value={values.username}
            onChange={set("username")}
            aria-invalid={errors.username ? true : undefined}
            aria-describedby={describedBy("username", `${id}-username-hint`)}
          />
          <p id={`${id}-username-hint`} className="field-hint user-text">
            Your public profile: /{values.username.trim() || "name"}
          </p>
          {errorText("username")}
        </div>
        <div>
          <label htmlFor={`${id}-bio`} className="field-label">
            Bio
          </label>
          <textarea
            id={`${id}-bio`}
            className="field-input min-h-28"
            placeholder="Tell people about yourself and your health goals"
            value={values.bio}
            onChange={set("bio")}
            aria-invalid={errors.bio ? true : undefined}
            aria-describedby={describedBy("bio", `${id}-bio-count`)}
          />
          <p
            id={`${id}-bio-count`}
            className={`mt-1.5 text-right text-sm ${values.bio.length > BIO_MAX ? "text-red-700" : "text-slate-600"}`}
          >
            {values.bio.length}/{BIO_MAX}
          </p>
          {errorText("bio")}
        </div>
      </section>

      <fieldset>
        <legend className="font-semibold text-slate-900">Social Links</legend>
        <div className="mt-4 grid gap-5 sm:grid-cols-2">
          {SOCIAL_LINKS.map((link) => (
            <div key={link.field}>
              <label htmlFor={`${id}-${link.field}`} className="field-label">
                {link.label}
              </label>
              <input
                id={`${id}-${link.field}`}
                type="url"
                inputMode="url"
                className="field-input"
                placeholder={PLACEHOLDERS[link.field]}
                value={values[link.field]}
                onChange={set(link.field)}
                aria-invalid={errors[link.field] ? true : undefined}
                aria-describedby={describedBy(link.field)}
              />
              {errorText(link.field)}
            </div>
          ))}
        </div>
      </fieldset>

      <fieldset aria-describedby={`${id}-public-hint`}>
        <legend className="font-semibold text-slate-900">Public Profile</legend>
        <p id={`${id}-public-hint`} className="mt-1 text-sm text-slate-600">
          {user.isPremium
            ? "What visitors of your public page see of your supplements."
            : "Notes and affiliate links show on your public page only while you are a Premium member."}
        </p>
        <div className="mt-4 space-y-3">
          {(
            [
              ["showNotes", SHOW_NOTES_LABEL],
              ["showAffiliateLinks", SHOW_AFFILIATE_LINKS_LABEL],
            ] as const
          ).map(([field, label]) => (
            <label key={field} className="flex cursor-pointer items-center justify-between gap-4">
              <span className="min-w-0 text-sm text-slate-800">{label}</span>
              <input
                type="checkbox"
                role="switch"
                aria-checked={switches[field]}
                checked={switches[field]}
                onChange={(e) => setSwitches((v) => ({ ...v, [field]: e.target.checked }))}
                className="peer sr-only"
              />
              <span
                aria-hidden="true"
                className="relative inline-flex h-6 w-11 shrink-0 rounded-full bg-slate-300 transition-colors peer-checked:bg-brand-600 peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-brand-600 after:absolute after:top-0.5 after:left-0.5 after:size-5 after:rounded-full after:bg-white after:shadow after:transition-transform peer-checked:after:translate-x-5"
              />
            </label>
          ))}
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
