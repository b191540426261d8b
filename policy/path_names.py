"""The names and patterns the path checks (``cairn.policy.paths``) judge by: shell rc files,
credentials, persistence points, secret files, system directories, devices, files other tools
execute on their own.  Data only; ``cairn.policy.paths`` holds the rules that use it.
"""

from __future__ import annotations

from cairn.policy.vocab import words

HOME_RC = words(
    """.bashrc .bash_profile .bash_login .bash_logout .bash_aliases .profile .zshrc .zshenv .zprofile
    .zlogin .zlogout .kshrc .mkshrc .cshrc .tcshrc .login .logout .inputrc .xprofile .xinitrc
    .xsession .xsessionrc .pam_environment .config/fish .config/environment.d .config/nushell"""
)
HOME_CREDENTIALS = words(
    """.ssh .aws .gnupg .netrc .git-credentials .gitconfig .config/git .docker .kube .npmrc .yarnrc
    .yarnrc.yml .pypirc .pip .config/pip .config/gh .config/hub .config/gcloud .azure
    .m2/settings.xml .gradle/gradle.properties .cargo/credentials .cargo/credentials.toml
    .terraform.d .vault-token .password-store .local/share/keyrings .config/op
    .claude/.credentials.json"""
)
HOME_PERSISTENCE = words(
    """.config/autostart .config/systemd Library/LaunchAgents Library/LaunchDaemons .local/bin bin
    .config/Code/User .config/Cursor .config/zed .claude .claude.json .codex .gemini .cursor
    .continue .cline .windsurf .codeium .aider.conf.yml .config/aider .opencode .config/opencode
    .config/github-copilot .copilot .kiro .roo .amp .config/amp .config/goose .config/crush
    .config/cairn .local/state/cairn .local/share/cairn .gradle/init.d .gradle/init.gradle
    .gradle/init.gradle.kts .gradle/gradle.properties .m2 .mavenrc .sbt .ivy2 .cargo/config
    .cargo/config.toml .cargo/bin .rustup .config/direnv .local/share/direnv .direnvrc .ipython
    .jupyter .config/ipython .local/share/jupyter .pythonrc .pythonrc.py .pythonstartup
    .config/pythonstartup .pydistutils.cfg .condarc .config/conda .config/uv .config/pypoetry
    .npm-init.js .config/yarn .bunfig.toml .config/containers .vimrc .vim .config/nvim .exrc
    .emacs .emacs.d .config/emacs .nanorc .tmux.conf .config/tmux .screenrc .curlrc .wgetrc
    .config/wget .gemrc .irbrc .pryrc .bundle .hgrc .config/hg .editrc .lesskey .config/lesskey
    .local/share/applications .config/user-dirs.dirs .config/mimeapps.list .mailcap
    .config/environment.d .config/plasma-workspace .kde/Autostart .config/lxsession
    .config/openbox .config/i3 .config/sway .config/hypr .xbindkeysrc .config/crontab
    .local/share/systemd"""
)
#: Glob patterns under the home directory (fnmatch, case-folded) for the same purpose.
HOME_PERSISTENCE_GLOBS = (
    ".local/lib/python*/site-packages",  # user-site .pth files and usercustomize.py run at startup
    "library/python/*/lib/python/site-packages",
    ".ipython/profile_*/startup",
)
SENSITIVE_READ = words(
    """.ssh .aws .gnupg .netrc .git-credentials .docker/config.json .docker .kube .npmrc .pypirc
    .config/gh .config/hub .config/gcloud .azure .cargo/credentials .cargo/credentials.toml
    .terraform.d/credentials.tfrc.json .vault-token .password-store .local/share/keyrings
    .config/op .claude/.credentials.json .codex/auth.json .gemini/oauth_creds.json .gem/credentials
    .config/pip/pip.conf .pip/pip.conf .m2/settings.xml .gradle/gradle.properties .config/hcloud
    .config/doctl .oci .config/rclone .s3cfg .boto .pgpass .my.cnf .config/git/credentials
    .local/share/keyrings .mozilla .config/google-chrome .config/chromium .thunderbird"""
)
SYSTEM_READ_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/root")
SYSTEM_DIRS = words(
    """/etc /usr /bin /sbin /lib /lib32 /lib64 /libx32 /boot /opt /sys /proc /dev /System /Library
    /private/etc /var/spool/cron /var/spool/anacron /var/db /var/lib/systemd /root /snap
    /run/systemd /run/user"""
)
#: File names that hold secrets wherever they are (compared case-folded); reading one asks in
#: every mode unless an allow rule names it.
SECRET_FILE_NAMES = frozenset(
    words(
        """.env .envrc .git-credentials .netrc _netrc .npmrc .pypirc .yarnrc.yml .pgpass .my.cnf
        .htpasswd .vault-token .boto .s3cfg .dockercfg .terraformrc terraform.tfvars
        credentials credentials.json credentials.toml credentials.db credentials.tfrc.json
        application_default_credentials.json access_tokens.db legacy_credentials
        id_rsa id_dsa id_ecdsa id_ed25519 id_ecdsa_sk id_ed25519_sk identity authorized_keys
        known_hosts secring.gpg private-keys-v1.d kubeconfig service-account.json
        client_secret.json client_secrets.json token.json tokens.json auth.json
        keystore.jks"""
    )
)
SECRET_FILE_GLOBS = (
    ".env.*",  # .env.local, .env.production (not the templates below)
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.ppk",
    "*.kdbx",
    "*service-account*.json",
    "*.tfstate",
)
SECRET_TEMPLATES = (".example", ".sample", ".template", ".dist", ".defaults", ".schema")
NEUTRAL_DEVICES = words(
    """/dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/stdin /dev/stdout /dev/stderr
    /dev/tty"""
)
BLOCK_DEVICE_GLOBS = words(
    """/dev/sd* /dev/hd* /dev/vd* /dev/xvd* /dev/nvme* /dev/mmcblk* /dev/disk* /dev/rdisk*
    /dev/mapper/* /dev/dm-* /dev/md* /dev/loop* /dev/sr* /dev/nbd* /dev/zram* /dev/mem /dev/kmem
    /dev/port /proc/sysrq-trigger /dev/fb*"""
)
#: Inside the workspace: files other tools execute on their own (IDE tasks, direnv, git hook managers).
AUTO_EXEC_NAMES = words(
    """.vscode .idea .envrc .devcontainer .husky .pre-commit-config.yaml .mcp.json .cursor .claude
    .gemini .codex .clinerules .cairn .github .gitlab-ci.yml .circleci .buildkite .git
    .gitmodules .gitattributes agents.md context.md claude.md gemini.md .cursorrules
    .windsurfrules .aider.conf.yml .continue .roo .kiro .opencode .npmrc .mvn .jvmopts
    .sbtopts .bazelrc .cargo .venv venv .tox .nox __pypackages__ node_modules .pnp.cjs
    .pnp.loader.mjs .yarn .bunfig.toml bunfig.toml .tool-versions .sdkmanrc .direnv
    sitecustomize.py usercustomize.py conftest.py .pth .python-version .nvmrc .node-version
    .devcontainer.json .pdbrc .pythonrc .rprofile .renviron .lfsconfig .gdbinit .lldbinit .irbrc
    .pryrc opencode.json opencode.jsonc .zed .amazonq .windsurf .fleet .theia .idx .replit
    crush.json .crush.json .goose .amp .junie .trae .augment .qodo .tabnine jenkinsfile
    azure-pipelines.yml azure-pipelines.yaml .gitpod.yml .gitpod.dockerfile .travis.yml
    bitbucket-pipelines.yml .drone.yml .woodpecker.yml .woodpecker .buildkite.yml
    .pre-commit-hooks.yaml lefthook.yml .lefthook.yml .goosehints .rules .kilocode .openhands
    .cody"""
)
#: Glob patterns for the same (compared case-folded, per path component).
AUTO_EXEC_GLOBS = (
    ".yarnrc*",
    "rust-toolchain*",
    "*.pth",
    ".env*",
    "gradle-wrapper.*",
    "mvnw*",
    "gradlew*",
    "*.code-workspace",
    ".aider*",
    "azure-pipelines*.y*ml",
    ".gitlab-ci*.y*ml",
)
