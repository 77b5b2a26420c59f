// A small Astro site whose post URLs are built by its content config (code), not by data.
import { defineConfig } from "astro/config"

export default defineConfig({
  site: "https://notes.example",
})
