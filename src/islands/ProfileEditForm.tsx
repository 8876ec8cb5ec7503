import { useStore } from "@nanostores/react";
import { useEffect, useId, useRef, useState } from "react";
import Field from "../components/Field";
import { MESSAGES, PROFILE_MESSAGES } from "../lib/account-messages";
import { ApiError, api, errorMessage } from "../lib/api";
import { BIO_MAX, PROFILE_IMAGE_MAX_BYTES, SOCIAL_LINKS, type SocialField } from "../lib/constants";
import { notify } from "../lib/toast";
import type { CurrentUser, ImageUploadAnswer } from "../lib/types";
import { profileUpdateSchema } from "../lib/validation";
import { $user, refreshUser, seedUser } from "../stores/user";
import Avatar from "./Avatar";
import PublicSwitches, { switchesOf } from "./profile/PublicSwitches";

type FieldName = "username" | "bio" | SocialField;
type Values = Record<FieldName, string>;

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
      const sent = user.isPremium
        ? switches
        : { showSchedule: switches.showSchedule, allowCopies: switches.allowCopies };
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

      <PublicSwitches id={id} isPremium={user.isPremium} switches={switches} onChange={setSwitches} />

      <div className="flex justify-end border-t border-slate-200 pt-6">
        <button type="submit" className="btn btn-primary w-full sm:w-auto" disabled={saving}>
          {saving ? "Updating..." : "Update Profile"}
        </button>
      </div>
    </form>
  );
}
